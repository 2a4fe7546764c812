#!/usr/bin/env python3
"""HTTPS through a proxy that intercepts CONNECT, driven byte by byte with Python's ssl module (SSLObject over
memory BIOs), for the tests of what the proxy must cope with.

    tunnel_tls_client.py pipelined PROXY_PORT CAFILE HOST SPLIT
        Sends `CONNECT HOST:443` and the first SPLIT bytes of the ClientHello in one write ("all": the whole
        hello), the rest of the hello after the proxy's 200, then two GET /hello on the tunnel.
        Prints {"answers": [status and body, ...], "version": TLS version}.
    tunnel_tls_client.py resume PORT CAFILE HOST COUNT [tunnel|direct] [1.2]
        COUNT connections one after the other (through CONNECT, or straight to a TLS port with `direct`), each
        offering the session of the one before; one GET /hello on each. `1.2`: TLS 1.2 at most.
        Prints {"reused": [bool, ...], "serials": [certificate serial, ...], "answers": [...]}.
    tunnel_tls_client.py burst PORT CAFILE HOST PATH COUNT [tunnel|direct]
        Ends the handshake and sends COUNT GET PATH, each in a TLS record of its own, in one write (the client's
        Finished and every request together), waits a second before reading, then reads COUNT answers.
        Prints {"answers": COUNT read, "distinct": [status and body, ...]}.
    tunnel_tls_client.py halfclose PORT CAFILE HOST PATH [tunnel|direct]
        Sends one GET PATH and then shuts the socket's sending side (no close_notify), then reads the answer.
        Prints {"answers": 1, "distinct": [status and body]}.

The certificate chain is verified against CAFILE and the host name checked. Exits 1 with the error on stderr when
something fails.
"""
import json
import socket
import ssl
import sys
import threading
import time


class Tunnel:
    def __init__(self, port, context, host, session=None, direct=False, split=None):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname=host, session=session)
        if direct:
            return
        connect = b"CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (host.encode(), host.encode())
        if split is not None:
            try:
                self.tls.do_handshake()
            except ssl.SSLWantReadError:
                pass
            hello = self.outgoing.read()
            cut = len(hello) if split == "all" else int(split)
            self.socket.sendall(connect + hello[:cut])
            rest = hello[cut:]
        else:
            self.socket.sendall(connect)
            rest = b""
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise OSError("the proxy closed before its answer to CONNECT")
            head += chunk
        head, after = head.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 200"):
            raise OSError("CONNECT refused: %r" % head)
        if rest:
            self.socket.sendall(rest)
        if after:
            self.incoming.write(after)

    def flush(self):
        data = self.outgoing.read()
        if data:
            self.socket.sendall(data)

    def fill(self):
        chunk = self.socket.recv(65536)
        if not chunk:
            raise OSError("the connection closed")
        self.incoming.write(chunk)

    def handshake(self):
        while True:
            try:
                self.tls.do_handshake()
                self.flush()
                return
            except ssl.SSLWantReadError:
                self.flush()
                self.fill()

    def get(self, path, host):
        self.tls.write(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
        self.flush()
        data = b""
        while True:
            if b"\r\n\r\n" in data:
                head, body = data.split(b"\r\n\r\n", 1)
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                if len(body) >= length:
                    return "%s %s" % (head.split(b" ")[1].decode(), body[:length].decode())
            try:
                data += self.tls.read(65536)
            except ssl.SSLWantReadError:
                self.fill()

    def read_answers(self, count):
        """Reads `count` answers with a Content-Length; returns the set of distinct "status body"."""
        data, distinct, read = b"", set(), 0
        while read < count:
            while b"\r\n\r\n" in data:
                head, rest = data.split(b"\r\n\r\n", 1)
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                if len(rest) < length:
                    break
                distinct.add("%s %s" % (head.split(b" ")[1].decode(), rest[:length].decode()))
                data, read = rest[length:], read + 1
            if read == count:
                break
            try:
                data += self.tls.read(65536)
            except ssl.SSLWantReadError:
                self.fill()
        return read, sorted(distinct)

    def close(self):
        try:
            self.tls.unwrap()
            self.flush()
        except (ssl.SSLError, OSError):
            pass
        self.socket.close()


def main():
    mode, port, cafile, host = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    context = ssl.create_default_context(cafile=cafile)
    try:
        if mode == "pipelined":
            tunnel = Tunnel(port, context, host, split=sys.argv[5])
            tunnel.handshake()
            answers = [tunnel.get("/hello", host), tunnel.get("/hello", host)]
            print(json.dumps({"answers": answers, "version": tunnel.tls.version()}))
            tunnel.close()
        elif mode == "resume":
            count, direct = int(sys.argv[5]), len(sys.argv) > 6 and sys.argv[6] == "direct"
            if len(sys.argv) > 7 and sys.argv[7] == "1.2":
                context.maximum_version = ssl.TLSVersion.TLSv1_2
            session, reused, serials, answers = None, [], [], []
            for _ in range(count):
                tunnel = Tunnel(port, context, host, session=session, direct=direct)
                tunnel.handshake()
                answers.append(tunnel.get("/hello", host))  # the TLS 1.3 tickets come with the answer
                reused.append(tunnel.tls.session_reused)
                serials.append(tunnel.tls.getpeercert()["serialNumber"])
                session = tunnel.tls.session
                tunnel.close()
            print(json.dumps({"reused": reused, "serials": serials, "answers": answers}))
        elif mode == "burst":
            path, count = sys.argv[5], int(sys.argv[6])
            tunnel = Tunnel(port, context, host, direct=len(sys.argv) > 7 and sys.argv[7] == "direct")
            while True:  # the client's last flight is kept back, to go out with the requests
                try:
                    tunnel.tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    tunnel.flush()
                    tunnel.fill()
            for _ in range(count):
                tunnel.tls.write(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
            burst = tunnel.outgoing.read()
            sender = threading.Thread(target=tunnel.socket.sendall, args=(burst,), daemon=True)
            sender.start()
            time.sleep(1)  # the answers fill the socket before the client reads any
            read, distinct = tunnel.read_answers(count)
            sender.join(10)
            print(json.dumps({"answers": read, "distinct": distinct}))
            tunnel.close()
        elif mode == "halfclose":
            path = sys.argv[5]
            tunnel = Tunnel(port, context, host, direct=len(sys.argv) > 6 and sys.argv[6] == "direct")
            tunnel.handshake()
            tunnel.tls.write(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
            tunnel.flush()
            tunnel.socket.shutdown(socket.SHUT_WR)
            read, distinct = tunnel.read_answers(1)
            print(json.dumps({"answers": read, "distinct": distinct}))
            tunnel.socket.close()
        else:
            raise SystemExit("unknown mode " + mode)
    except (ssl.SSLError, OSError) as error:
        print(error, file=sys.stderr)
        sys.exit(1)


main()
