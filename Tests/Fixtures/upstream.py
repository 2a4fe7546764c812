#!/usr/bin/env python3
"""A real upstream for Orrery's proxy tests, on 127.0.0.1 only.

    upstream.py [--tls CERT KEY] [--name NAME]

Prints "PORT <n>" once listening, then serves until killed:
  /echo...           JSON: name, method, path (with query), headers, body length and sha256
  /big?size=N        N bytes (a repeating pattern)
  /chunked           a chunked response of several parts
  /gzip              a gzip-encoded JSON body
  /slow?ms=N         answers after N milliseconds
  /reset             promises 1000 bytes, sends 10, and closes the connection
  /status/N          an empty response with status N
"""
import gzip
import hashlib
import json
import socket
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NAME = "upstream"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        data = self.body()
        if url.path.startswith("/big"):
            size = int(query.get("size", ["1000"])[0])
            pattern = b"0123456789abcdef"
            self.send(200, (pattern * (size // 16 + 1))[:size], [("Content-Type", "application/octet-stream")])
        elif url.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in [b"first,", b"second,", b"third"]:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        elif url.path == "/gzip":
            payload = json.dumps({"compressed": True, "items": list(range(200))}).encode()
            self.send(200, gzip.compress(payload), [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
        elif url.path == "/slow":
            time.sleep(int(query.get("ms", ["1000"])[0]) / 1000)
            self.send(200, b"slow", [("Content-Type", "text/plain")])
        elif url.path == "/reset":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
        elif url.path.startswith("/status/"):
            self.send(int(url.path.split("/")[2]))
        else:
            answer = {
                "name": NAME,
                "method": self.command,
                "path": self.path,
                "headers": [[k, v] for k, v in self.headers.items()],
                "bodyLength": len(data),
                "bodySha256": hashlib.sha256(data).hexdigest(),
            }
            self.send(200, json.dumps(answer).encode(), [("Content-Type", "application/json"), ("X-Upstream", NAME)])

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = handle_any


def main():
    global NAME
    args = sys.argv[1:]
    tls = None
    while args:
        flag = args.pop(0)
        if flag == "--tls":
            tls = (args.pop(0), args.pop(0))
        elif flag == "--name":
            NAME = args.pop(0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
