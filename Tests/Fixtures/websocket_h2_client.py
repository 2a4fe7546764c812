"""WebSockets over HTTP/2 (RFC 8441) driven by hand with the `h2` library: `websocket_h2_client.py MODE PORT [CA]`.

The client reads the server's SETTINGS, opens the WebSocket with an extended CONNECT (`:protocol websocket`) and
writes RFC 6455 frames, masked as a client must, as DATA on that stream. Beside it, ordinary requests go on other
streams of the same connection. With CA, it speaks TLS (ALPN h2) and trusts that CA. Talks to 127.0.0.1:PORT only,
every wait bounded, and prints one JSON document of what it saw.

Modes:
  script     the chat stub's script: welcome, a JSON ping, a templated reply with a delay, a ping, binary, bye
  forwarded  /feed on api.example.com (forwarded to the host map's upstream): an echo, a reversed binary, a close
  bad HEX..  one WebSocket per HEX (raw frame bytes sent as they are) at once, and a GET beside them; prints the
             close code each stream got and the GET's status
"""
import json
import os
import socket
import ssl
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

PORT = int(sys.argv[2])


def frame(opcode, payload, masked=True, fin=True):
    """One RFC 6455 frame; a client's frames are masked."""
    head = bytes([(0x80 if fin else 0) | opcode])
    length = len(payload)
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 65536:
        head += bytes([mask_bit | 126]) + struct.pack(">H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack(">Q", length)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def parse_frames(buffer):
    """Whole server frames at the start of BUFFER (unmasked), and what is left."""
    frames = []
    while len(buffer) >= 2:
        opcode = buffer[0] & 0x0F
        length = buffer[1] & 0x7F
        index = 2
        if length == 126:
            if len(buffer) < 4:
                break
            length = struct.unpack(">H", buffer[2:4])[0]
            index = 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length = struct.unpack(">Q", buffer[2:10])[0]
            index = 10
        if len(buffer) < index + length:
            break
        frames.append((opcode, buffer[index:index + length]))
        buffer = buffer[index + length:]
    return frames, buffer


class Client:
    def __init__(self, ca=None):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
        if ca:
            context = ssl.create_default_context(cafile=ca)
            context.set_alpn_protocols(["h2"])
            self.sock = context.wrap_socket(self.sock, server_hostname="api.example.com")
            if self.sock.selected_alpn_protocol() != "h2":
                raise SystemExit("the server did not agree to h2")
        self.scheme = "https" if ca else "http"
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.flush()
        self.connect_protocol = None
        self.status = {}
        self.headers = {}
        self.data = {}
        self.ended = set()
        self.reset = {}
        self.frames = {}
        self.seen_settings = False
        self.wait(lambda: self.seen_settings)

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def pump(self, timeout):
        """Reads once (at most TIMEOUT seconds) and handles what came."""
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(65536)
        except (socket.timeout, TimeoutError):
            return
        if not chunk:
            raise ConnectionError("the server closed the connection")
        for event in self.conn.receive_data(chunk):
            if isinstance(event, h2.events.RemoteSettingsChanged):
                self.seen_settings = True
                changed = event.changed_settings.get(h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL)
                if changed is not None:
                    self.connect_protocol = changed.new_value
            elif isinstance(event, h2.events.ResponseReceived):
                fields = {name.decode(): value.decode() for name, value in event.headers}
                self.status[event.stream_id] = int(fields[":status"])
                self.headers[event.stream_id] = fields
            elif isinstance(event, h2.events.DataReceived):
                self.data[event.stream_id] = self.data.get(event.stream_id, b"") + event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.ended.add(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.reset[event.stream_id] = event.error_code
        self.flush()

    def wait(self, condition, seconds=5):
        deadline = time.monotonic() + seconds
        while not condition() and time.monotonic() < deadline:
            self.pump(max(0.01, deadline - time.monotonic()))
        return condition()

    def open_websocket(self, path, authority="127.0.0.1"):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [
            (":method", "CONNECT"), (":protocol", "websocket"), (":scheme", self.scheme), (":path", path),
            (":authority", authority), ("sec-websocket-version", "13"),
        ])
        self.flush()
        self.wait(lambda: stream in self.status or stream in self.reset)
        return stream

    def get(self, path):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(
            stream, [(":method", "GET"), (":scheme", self.scheme), (":path", path), (":authority", "127.0.0.1")],
            end_stream=True)
        self.flush()
        return stream

    def send(self, stream, raw, end=False):
        self.conn.send_data(stream, raw, end_stream=end)
        self.flush()

    def next_frame(self, stream, seconds=5):
        """The server's next WebSocket frame on STREAM, as (opcode, payload), or None."""
        queue = self.frames.setdefault(stream, [])

        def ready():
            parsed, rest = parse_frames(self.data.get(stream, b""))
            self.data[stream] = rest
            queue.extend(parsed)
            return bool(queue) or stream in self.ended or stream in self.reset

        self.wait(ready, seconds)
        return queue.pop(0) if queue else None


def describe(item):
    if item is None:
        return None
    opcode, payload = item
    if opcode == 1:
        return payload.decode()
    if opcode == 8:
        return {"close": struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None,
                "reason": payload[2:].decode("utf-8", "replace")}
    if opcode == 10:
        return {"pong": payload.decode("utf-8", "replace")}
    return {"binary": list(payload)}


def script(ca):
    client = Client(ca)
    ws = client.open_websocket("/chat")
    result = {"connectProtocol": client.connect_protocol, "status": client.status.get(ws),
              "accept": "sec-websocket-accept" in client.headers.get(ws, {})}
    if result["status"] != 200:
        print(json.dumps(result))
        return
    seen = [describe(client.next_frame(ws))]
    client.send(ws, frame(1, json.dumps({"type": "ping"}).encode()))
    seen.append(describe(client.next_frame(ws)))
    # An ordinary request on another stream while the WebSocket is open.
    other = client.get("/__admin/health")
    started = time.monotonic()
    client.send(ws, frame(1, b"hello there"))
    seen.append(describe(client.next_frame(ws)))
    seen.append(describe(client.next_frame(ws)))
    result["delayMs"] = (time.monotonic() - started) * 1000
    client.send(ws, frame(9, b"are you there"))
    seen.append(describe(client.next_frame(ws)))
    client.send(ws, frame(2, b"\x00\x01binary"))
    seen.append(describe(client.next_frame(ws)))
    client.send(ws, frame(1, b"bye"))
    seen.append(describe(client.next_frame(ws)))
    seen.append(describe(client.next_frame(ws)))
    client.wait(lambda: ws in client.ended and other in client.ended)
    result.update({"seen": seen, "ended": ws in client.ended, "otherStatus": client.status.get(other)})
    print(json.dumps(result))


def forwarded(ca):
    client = Client(ca)
    ws = client.open_websocket("/feed", authority="api.example.com")
    result = {"status": client.status.get(ws), "headers": client.headers.get(ws)}
    if result["status"] != 200:
        print(json.dumps(result))
        return
    seen = [describe(client.next_frame(ws))]
    client.send(ws, frame(1, b"hi"))
    seen.append(describe(client.next_frame(ws)))
    client.send(ws, frame(2, b"\x01\x02\x03"))
    seen.append(describe(client.next_frame(ws)))
    client.send(ws, frame(1, b"close"))
    seen.append(describe(client.next_frame(ws)))
    # The close handshake: the client's close echoes the server's, and the client ends its side.
    client.send(ws, frame(8, struct.pack(">H", 4001)), end=True)
    client.wait(lambda: ws in client.ended or ws in client.reset)
    result.update({"seen": seen, "ended": ws in client.ended})
    print(json.dumps(result))


def bad(ca, frames_hex):
    client = Client(ca)
    streams = []
    for raw in frames_hex:
        ws = client.open_websocket("/chat")
        client.next_frame(ws)  # the welcome
        client.send(ws, bytes.fromhex(raw))
        streams.append(ws)
    other = client.get("/__admin/health")
    codes = []
    for ws in streams:
        close = None
        while True:
            item = client.next_frame(ws)
            if item is None:
                break
            if item[0] == 8:
                close = describe(item)["close"]
                break
        client.wait(lambda: ws in client.ended or ws in client.reset)
        codes.append({"code": close, "ended": ws in client.ended, "reset": client.reset.get(ws)})
    client.wait(lambda: other in client.ended)
    print(json.dumps({"closes": codes, "otherStatus": client.status.get(other)}))


if __name__ == "__main__":
    mode = sys.argv[1]
    arguments = sys.argv[3:]
    ca = None
    if arguments and arguments[0].startswith("--ca="):
        ca = arguments.pop(0)[len("--ca="):]
    if mode == "script":
        script(ca)
    elif mode == "forwarded":
        forwarded(ca)
    elif mode == "bad":
        bad(ca, arguments)
