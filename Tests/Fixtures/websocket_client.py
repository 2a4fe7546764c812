"""WebSocket and server-sent-event clients for the real-time tests: `websocket_client.py MODE PORT [ARG]`.

Each mode talks to 127.0.0.1:PORT only, is bounded in time, and prints one JSON document of what it saw.
"""
import asyncio
import json
import socket
import ssl
import sys
import time

import websockets

PORT = int(sys.argv[2])
URL = f"ws://127.0.0.1:{PORT}"


async def script():
    """The chat stub's script: the welcome, a JSON match, a template with a delay, a miss, a ping, a close."""
    seen = []
    async with websockets.connect(URL + "/chat", proxy=None, open_timeout=5, close_timeout=5) as ws:
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        await ws.send(json.dumps({"type": "ping"}))
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        started = time.monotonic()
        await ws.send("hello there")
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        delay = (time.monotonic() - started) * 1000
        await ws.send("nothing matches this")
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)
        await ws.send(b"\x00\x01binary")
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        await ws.send("bye")
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        try:
            await asyncio.wait_for(ws.recv(), 5)
            code, reason = None, None
        except websockets.ConnectionClosed as closed:
            code, reason = closed.rcvd.code, closed.rcvd.reason
    seen = [item if isinstance(item, str) else {"binary": list(item)} for item in seen]
    print(json.dumps({"seen": seen, "delayMs": delay, "closeCode": code, "closeReason": reason}))


async def isolated():
    """Two sockets at once: each gets the answers to its own messages alone."""
    async with websockets.connect(URL + "/chat", proxy=None) as first, websockets.connect(URL + "/chat", proxy=None) as second:
        await first.recv()
        await second.recv()
        await first.send("hello from first")
        await second.send("hello from second")
        answers = [await asyncio.wait_for(first.recv(), 5), await asyncio.wait_for(second.recv(), 5)]
    print(json.dumps({"answers": answers}))


async def many(count):
    """Opens COUNT sockets at once, then has each say hello and hear its own answer; prints how many did."""
    sockets = []
    try:
        for _ in range(count):
            ws = await websockets.connect(URL + "/chat", proxy=None, open_timeout=10, compression=None)
            sockets.append(ws)
            await asyncio.wait_for(ws.recv(), 10)
        for index, ws in enumerate(sockets):
            await ws.send(f"hello {index}")
        answered = 0
        for index, ws in enumerate(sockets):
            if await asyncio.wait_for(ws.recv(), 10) == f"you said hello {index}":
                answered += 1
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    print(json.dumps({"opened": len(sockets), "answered": answered}))


def raw(frames_hex):
    """Sends an opening handshake and then raw frame bytes; prints the status line and the close frame received."""
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    sock.sendall(
        b"GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        if not chunk:
            break
        received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    sock.sendall(bytes.fromhex(frames_hex))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        rest += chunk
    sock.close()
    # The frames the server sent: opcode, and for a close frame its code.
    frames = []
    index = 0
    while index + 2 <= len(rest):
        opcode = rest[index] & 0x0F
        length = rest[index + 1] & 0x7F
        index += 2
        if length == 126:
            length = int.from_bytes(rest[index:index + 2], "big")
            index += 2
        elif length == 127:
            length = int.from_bytes(rest[index:index + 8], "big")
            index += 8
        payload = rest[index:index + length]
        index += length
        frame = {"opcode": opcode}
        if opcode == 8 and len(payload) >= 2:
            frame["code"] = int.from_bytes(payload[:2], "big")
        elif opcode == 1:
            frame["text"] = payload.decode("utf-8", "replace")
        frames.append(frame)
    print(json.dumps({"status": head.split(b"\r\n")[0].decode(), "frames": frames}))


def raw_upgrade(host):
    """A valid opening handshake for /feed naming HOST; prints the answer's status line, headers and body."""
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    sock.sendall(
        f"GET /feed HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n".encode()
        + b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    received = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        head, _, body = received.partition(b"\r\n\r\n")
        length = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
        if length and len(body) >= length[0]:
            break
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        received += chunk
    sock.close()
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    print(json.dumps({"status": lines[0], "headers": "\n".join(lines[1:]), "body": body.decode("utf-8", "replace")}))


def events(path, host="127.0.0.1"):
    """Reads a server-sent event stream to its end; prints each event with the milliseconds since the request."""
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    started = time.monotonic()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    buffer = b""
    arrivals = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        buffer += chunk
        # Each event ends with a blank line; note when each one's end arrives.
        while buffer.count(b"\n\n") > len(arrivals):
            arrivals.append((time.monotonic() - started) * 1000)
        if buffer.endswith(b"0\r\n\r\n"):
            break
    sock.close()
    print(json.dumps({"raw": buffer.decode("utf-8", "replace"), "arrivals": arrivals}))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "script":
        asyncio.run(script())
    elif mode == "isolated":
        asyncio.run(isolated())
    elif mode == "many":
        asyncio.run(many(int(sys.argv[3])))
    elif mode == "raw":
        raw(sys.argv[3])
    elif mode == "events":
        events(sys.argv[3])
    elif mode == "raw-upgrade":
        raw_upgrade(sys.argv[3])
    elif mode == "proxied-events":
        events(sys.argv[3], host="api.example.com")


def connect_through(authority):
    """A socket through Orrery as an HTTP proxy: CONNECT AUTHORITY, answered 200, then the tunnel."""
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    sock.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"CONNECT {authority} answered {head!r}")
    return sock


async def forwarded(url="ws://api.example.com/feed", ca=None, tunnel=None):
    """Through Orrery to the host map's upstream: the socket opened to 127.0.0.1, the URL naming api.example.com.
    With CA, the URL is wss:// (Orrery's TLS port, or inside a CONNECT to TUNNEL) and Orrery's CA is trusted."""
    sock = connect_through(tunnel) if tunnel else socket.create_connection(("127.0.0.1", PORT), timeout=5)
    seen = []
    options = {"ssl": ssl.create_default_context(cafile=ca)} if ca else {}
    async with websockets.connect(url, sock=sock, proxy=None, open_timeout=5, **options) as ws:
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        await ws.send("hi")
        seen.append(await asyncio.wait_for(ws.recv(), 5))
        await ws.send(b"\x01\x02\x03")
        seen.append(list(await asyncio.wait_for(ws.recv(), 5)))
        await ws.send("close")
        try:
            await asyncio.wait_for(ws.recv(), 5)
            code = None
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code
    print(json.dumps({"seen": seen, "closeCode": code}))


if __name__ == "__main__" and sys.argv[1] == "forwarded":
    asyncio.run(forwarded())
elif __name__ == "__main__" and sys.argv[1] == "forwarded-tls":
    # forwarded-tls PORT CA URL [CONNECT-AUTHORITY]
    asyncio.run(forwarded(sys.argv[4], ca=sys.argv[3], tunnel=sys.argv[5] if len(sys.argv) > 5 else None))
