"""WebSocket echo round trips per second, one client, one message at a time: `websocket_echo.py PORT HOST SECONDS`.

Opens ws://HOST/echo over a socket to 127.0.0.1:PORT (HOST picks the stub or the host map's upstream), then sends
a 32-byte text message and waits for its answer, again and again for SECONDS. Prints one JSON line.
"""
import asyncio
import json
import socket
import sys
import time

import websockets


async def main(port, host, seconds):
    sock = socket.create_connection(("127.0.0.1", port))
    async with websockets.connect(f"ws://{host}/echo", sock=sock, proxy=None, compression=None) as ws:
        await ws.recv()  # the greeting
        message = "x" * 32
        count = 0
        started = time.monotonic()
        end = started + seconds
        while time.monotonic() < end:
            await ws.send(message)
            await ws.recv()
            count += 1
        elapsed = time.monotonic() - started
    print(json.dumps({"roundTrips": count, "seconds": round(elapsed, 3), "perSecond": round(count / elapsed)}))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], float(sys.argv[3])))
