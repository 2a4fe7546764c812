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
  /stream?seconds=N  a chunked body of 64 KiB chunks, written as fast as the reader takes them, for N seconds
                     (&length=1 frames it with a Content-Length far larger than what is sent, then closes)
  /drip?ms=M&count=K a chunked body: K small chunks, one every M milliseconds
  /events?ms=M&count=K  server-sent events: K events, one every M milliseconds, then the end
  /stall?ms=M        the head and a first chunk, then M milliseconds of silence, then the end
  /status/N          an empty response with status N
  /rec/...           what recording must keep exactly: json, text (UTF-8), image.png (binary), deflate,
                     redirect (302), etag (304 when If-None-Match matches), cookies (two Set-Cookie),
                     whoami (echoes Authorization), counter (a new answer each time), big (100 KB of JSON)
"""
import gzip
import hashlib
import json
import socket
import ssl
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NAME = "upstream"
COUNTER = [0]
COUNTER_LOCK = threading.Lock()
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(256)) * 8


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
        elif url.path == "/split-head":
            # A long header line that arrives in two parts, 50 ms apart: the proxy's read buffer holds it in
            # two chunks, and the line has to be put together before it is read.
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Long: " + b"a" * 6000 + b"\r\nContent-Length: 2\r\n\r\nok"
            self.wfile.write(head[:3000])
            self.wfile.flush()
            time.sleep(0.05)
            self.wfile.write(head[3000:])
            self.wfile.flush()
        elif url.path == "/drop-second":
            # Answers the first request on a connection and closes it on the second without a word: what a
            # server that times out idle keep-alive connections does to a request sent at that moment.
            if getattr(self, "served", False):
                self.close_connection = True
                return
            self.served = True
            self.send(200, b"ok", [("Content-Type", "text/plain")])
        elif url.path == "/stream":
            seconds = float(query.get("seconds", ["3"])[0])
            with_length = query.get("length", ["0"])[0] == "1"
            piece = b"x" * 65536
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if with_length:
                self.send_header("Content-Length", str(1 << 40))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = piece if with_length else b"%x\r\n%s\r\n" % (len(piece), piece)
            end = time.monotonic() + seconds
            try:
                while time.monotonic() < end:
                    self.wfile.write(chunk)
                if not with_length:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True
        elif url.path == "/drip":
            delay = int(query.get("ms", ["100"])[0]) / 1000
            count = int(query.get("count", ["10"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            try:
                for index in range(count):
                    time.sleep(delay)
                    self.wfile.write(b"2\r\n%02d\r\n" % (index % 100))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True
        elif url.path == "/events":
            delay = int(query.get("ms", ["100"])[0]) / 1000
            count = int(query.get("count", ["3"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            try:
                for index in range(count):
                    time.sleep(delay)
                    event = b"id: %d\ndata: tick %d\n\n" % (index, index)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True
        elif url.path == "/stall":
            delay = int(query.get("ms", ["1000"])[0]) / 1000
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"5\r\nfirst\r\n")
            self.wfile.flush()
            time.sleep(delay)
            try:
                self.wfile.write(b"4\r\nlast\r\n0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True
        elif url.path == "/reset":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
        elif url.path.startswith("/rec/"):
            self.recorded(url.path[len("/rec/"):], query, data)
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

    def recorded(self, name, query, data):
        if name == "json":
            body = json.dumps({"id": 7, "name": "Ada", "query": sorted(query.items())}).encode()
            self.send(200, body, [("Content-Type", "application/json"), ("X-Request-Id", "r-7"), ("Cache-Control", "max-age=60")])
        elif name == "text":
            self.send(200, "héllo wörld 🪐\ntrailing space \n\ttab\n".encode(), [("Content-Type", "text/plain; charset=utf-8")])
        elif name == "image.png":
            self.send(200, PNG, [("Content-Type", "image/png")])
        elif name == "deflate":
            payload = json.dumps({"deflated": True, "items": list(range(300))}).encode()
            self.send(200, zlib.compress(payload), [("Content-Type", "application/json"), ("Content-Encoding", "deflate")])
        elif name == "redirect":
            self.send(302, b"", [("Location", "/rec/json"), ("X-Why", "moved")])
        elif name == "etag":
            if self.headers.get("If-None-Match") == '"v1"':
                self.send(304, b"", [("ETag", '"v1"')])
            else:
                self.send(200, b"fresh", [("Content-Type", "text/plain"), ("ETag", '"v1"')])
        elif name == "cookies":
            self.send(200, b"{}", [("Content-Type", "application/json"), ("Set-Cookie", "session=cookie-secret-4567; Path=/"),
                                   ("Set-Cookie", "theme=dark; Path=/"), ("X-After", "cookies")])
        elif name == "whoami":
            body = json.dumps({"authorization": self.headers.get("Authorization"), "method": self.command}).encode()
            self.send(200, body, [("Content-Type", "application/json")])
        elif name == "counter":
            with COUNTER_LOCK:
                COUNTER[0] += 1
                value = COUNTER[0]
            self.send(200, b"count %d" % value, [("Content-Type", "text/plain")])
        elif name == "big":
            body = json.dumps([{"index": i, "text": "row %d of the big answer" % i} for i in range(2500)]).encode()
            self.send(200, body, [("Content-Type", "application/json")])
        elif name == "login":
            # A login as APIs answer one: the tokens in the body, for the client to keep.
            body = json.dumps({"user": json.loads(data or b"{}").get("username"), "access_token": "at-" + "7" * 24,
                               "refresh_token": "rt-" + "5" * 24, "token_type": "bearer"}).encode()
            self.send(200, body, [("Content-Type", "application/json")])
        elif name == "orders":
            self.send(201, json.dumps({"received": json.loads(data or b"null")}).encode(), [("Content-Type", "application/json")])
        else:
            self.send(404, b"no such recorded route", [("Content-Type", "text/plain")])

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = handle_any


def main():
    global NAME
    args = sys.argv[1:]
    tls = None
    port = 0
    while args:
        flag = args.pop(0)
        if flag == "--tls":
            tls = (args.pop(0), args.pop(0))
        elif flag == "--name":
            NAME = args.pop(0)
        elif flag == "--port":
            port = int(args.pop(0))
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
