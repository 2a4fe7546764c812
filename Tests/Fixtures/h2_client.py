#!/usr/bin/env python3
"""An HTTP/2 client for the tests: the h2 library for ordinary streams, hand-made frames for the attacks.

    h2_client.py PORT requests [--tls]  < {"requests": [{"method", "path", "headers": [[n, v]], "body"}], "timeout"}
    h2_client.py PORT ATTACK [--tls]    (rapid-reset, continuation-flood, hpack-bomb, ping-flood, settings-flood,
                                         zero-window, max-streams, header-list)

Prints one JSON object: for `requests`, each stream's status, headers, body, reset code and the milliseconds until
it ended, and the GOAWAY's error code if one came; for an attack, what the server did (GOAWAY code, resets, whether
it closed the connection). Loopback only, every wait bounded.
"""
import base64
import json
import socket
import ssl
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS = 0x1, 0x4


def connect(port, tls, timeout=10):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["h2", "http/1.1"])
        sock = context.wrap_socket(sock, server_hostname="localhost")
        assert sock.selected_alpn_protocol() == "h2", sock.selected_alpn_protocol()
    return sock


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def integer(value, prefix_bits, first=0):
    """HPACK's prefix integer (RFC 7541 5.1)."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append((value % 128) + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value, indexing=False):
    """A literal field with a new name, not Huffman-coded; with incremental indexing when asked."""
    name, value = name.encode(), value.encode()
    head = integer(0, 6, 0x40) if indexing else integer(0, 4, 0x00)
    return head + integer(len(name), 7) + name + integer(len(value), 7) + value


def request_block(path="/", extra=b""):
    # :method GET (2), :scheme http (6), :path, :authority as literals.
    return bytes([0x82, 0x86]) + literal(":path", path) + literal(":authority", "localhost") + extra


class Reader:
    """Reads frames until the server closes or the time is up; remembers GOAWAY and RST_STREAM."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.goaway = None
        self.resets = {}
        self.closed = False
        self.frames = []

    def pump(self, seconds, until=None):
        deadline = time.time() + seconds
        while time.time() < deadline and not self.closed:
            if until is not None and until(self):
                return
            self.sock.settimeout(max(0.01, min(0.2, deadline - time.time())))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
                self.closed = True
                return
            if not data:
                self.closed = True
                return
            self.buffer += data
            while len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) < 9 + length:
                    break
                kind, flags = self.buffer[3], self.buffer[4]
                stream = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
                payload = self.buffer[9:9 + length]
                self.buffer = self.buffer[9 + length:]
                self.frames.append((kind, flags, stream, len(payload)))
                if kind == GOAWAY:
                    self.goaway = {"lastStream": int.from_bytes(payload[:4], "big") & 0x7FFFFFFF,
                                   "error": int.from_bytes(payload[4:8], "big")}
                elif kind == RST_STREAM:
                    self.resets[stream] = int.from_bytes(payload[:4], "big")
                elif kind == SETTINGS and not flags & 1:
                    try:
                        self.sock.sendall(frame(SETTINGS, 1, 0))
                    except OSError:
                        self.closed = True

    def report(self, **more):
        result = {"goaway": self.goaway, "closed": self.closed,
                  "resets": {str(k): v for k, v in self.resets.items()},
                  "headers": sum(1 for f in self.frames if f[0] == HEADERS)}
        result.update(more)
        return result


def open_raw(port, tls, settings=b""):
    sock = connect(port, tls)
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
    return sock


def send_all(sock, data):
    """Sends what the server takes within a few seconds; a server that stops reading is part of what is tested."""
    sock.settimeout(5)
    sent = 0
    try:
        while sent < len(data):
            sent += sock.send(data[sent:sent + 65536])
    except (socket.timeout, OSError):
        pass
    return sent


def attack(port, tls, name):
    if name == "rapid-reset":
        sock = open_raw(port, tls)
        burst = b"".join(frame(HEADERS, END_STREAM | END_HEADERS, n, request_block("/fast")) +
                         frame(RST_STREAM, 0, n, struct.pack(">I", 8)) for n in range(1, 4002, 2))
        send_all(sock, burst)
        reader = Reader(sock)
        reader.pump(8, until=lambda r: r.goaway is not None)
        return reader.report()
    if name == "continuation-flood":
        sock = open_raw(port, tls)
        block = request_block("/fast")
        frames = frame(HEADERS, END_STREAM, 1, block[:4])
        rest = block[4:] + b"".join(literal("x-pad-%d" % i, "y") for i in range(40))
        pieces = [rest[i:i + 4] for i in range(0, len(rest), 4)]
        frames += b"".join(frame(CONTINUATION, 0, 1, piece) for piece in pieces[:-1])
        frames += frame(CONTINUATION, END_HEADERS, 1, pieces[-1])
        send_all(sock, frames)
        reader = Reader(sock)
        reader.pump(8)
        return reader.report(continuations=len(pieces))
    if name == "hpack-bomb":
        sock = open_raw(port, tls)
        # One 4 000-byte field into the dynamic table, then referenced (index 62) until it expands past 64 KiB.
        block = request_block("/fast", literal("x-bomb", "b" * 4000, indexing=True) + integer(62, 7, 0x80) * 40)
        send_all(sock, frame(HEADERS, END_STREAM | END_HEADERS, 1, block))
        reader = Reader(sock)
        reader.pump(8)
        return reader.report(blockBytes=len(block))
    if name in ("ping-flood", "settings-flood"):
        sock = open_raw(port, tls)
        one = frame(PING, 0, 0, b"12345678") if name == "ping-flood" else frame(SETTINGS, 0, 0)
        sent = send_all(sock, one * 200_000)
        reader = Reader(sock)
        reader.pump(8)
        return reader.report(sent=sent, total=len(one) * 200_000)
    if name == "zero-window":
        # No window for any stream: the answer's body can never be sent.
        sock = open_raw(port, tls, settings=struct.pack(">HI", 4, 0))
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, request_block("/big")))
        reader = Reader(sock)
        reader.pump(10)
        return reader.report()
    if name == "max-streams":
        # Twelve streams that are never answered: past the server's limit, the rest are refused (REFUSED_STREAM).
        sock = open_raw(port, tls)
        sock.sendall(b"".join(frame(HEADERS, END_STREAM | END_HEADERS, n, request_block("/hold")) for n in range(1, 24, 2)))
        reader = Reader(sock)
        reader.pump(3, until=lambda r: len(r.resets) >= 2)
        return reader.report()
    if name == "header-list":
        sock = open_raw(port, tls)
        block = request_block("/fast", b"".join(literal("x-big-%d" % i, "v" * 1000) for i in range(70)))
        pieces = [block[i:i + 16384] for i in range(0, len(block), 16384)]
        frames = frame(HEADERS, END_STREAM | (END_HEADERS if len(pieces) == 1 else 0), 1, pieces[0])
        for index, piece in enumerate(pieces[1:], 1):
            frames += frame(CONTINUATION, END_HEADERS if index == len(pieces) - 1 else 0, 1, piece)
        send_all(sock, frames)
        reader = Reader(sock)
        reader.pump(8)
        return reader.report()
    raise SystemExit("unknown attack " + name)


def requests(port, tls, spec):
    sock = connect(port, tls)
    config = h2.config.H2Configuration(client_side=True, validate_inbound_headers=False, header_encoding=None)
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    # A window large enough for the largest answer the tests ask for, so that none waits on the client.
    conn.increment_flow_control_window(16 * 1024 * 1024)
    start = time.time()
    streams = {}
    order = []
    for request in spec["requests"]:
        stream = conn.get_next_available_stream_id()
        body = base64.b64decode(request["bodyBase64"]) if "bodyBase64" in request else request.get("body", "").encode()
        headers = [(":method", request.get("method", "GET")), (":path", request["path"]),
                   (":scheme", "https" if tls else "http"), (":authority", "localhost")]
        headers += [tuple(pair) for pair in request.get("headers", [])]
        conn.send_headers(stream, headers, end_stream=not body)
        if body:
            conn.send_data(stream, body, end_stream=True)
        streams[stream] = {"status": None, "headers": [], "body": b"", "reset": None, "ms": None, "trailers": []}
        order.append(stream)
    sock.sendall(conn.data_to_send())
    goaway = None
    deadline = start + spec.get("timeout", 5)
    done = lambda: all(s["ms"] is not None for s in streams.values())
    while time.time() < deadline and not done():
        sock.settimeout(max(0.01, deadline - time.time()))
        try:
            data = sock.recv(65536)
        except (socket.timeout, ssl.SSLError, OSError):
            break
        if not data:
            break
        for event in conn.receive_data(data):
            now = round((time.time() - start) * 1000)
            if isinstance(event, h2.events.ResponseReceived):
                fields = [(n.decode(), v.decode()) for n, v in event.headers]
                streams[event.stream_id]["status"] = dict(fields).get(":status")
                streams[event.stream_id]["headers"] = [[n, v] for n, v in fields if not n.startswith(":")]
            elif isinstance(event, h2.events.TrailersReceived):
                streams[event.stream_id]["trailers"] = [[n.decode(), v.decode()] for n, v in event.headers]
            elif isinstance(event, h2.events.DataReceived):
                streams[event.stream_id]["body"] += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                streams[event.stream_id]["ms"] = now
            elif isinstance(event, h2.events.StreamReset):
                streams[event.stream_id]["reset"] = int(event.error_code)
                streams[event.stream_id]["ms"] = now
            elif isinstance(event, h2.events.ConnectionTerminated):
                goaway = int(event.error_code)
        sock.sendall(conn.data_to_send())
    for stream in streams.values():
        stream["bodyBase64"] = base64.b64encode(stream["body"]).decode()
        stream["body"] = stream["body"].decode("utf-8", "replace")
    return {"streams": [streams[s] for s in order], "goaway": goaway}


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    tls = "--tls" in sys.argv[3:]
    if mode == "requests":
        result = requests(port, tls, json.load(sys.stdin))
    else:
        result = attack(port, tls, mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
