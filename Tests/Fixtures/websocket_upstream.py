"""A WebSocket upstream on 127.0.0.1 for the forwarding tests: prints "PORT n", then answers each text message
with "echo: " and the message (and the path it was opened on, for the first), binary messages with their bytes
reversed; "close" closes with 4001. With `--tls CERT KEY` it speaks TLS (wss://) with that certificate. Runs until
it is killed, or for at most ten minutes.
"""
import asyncio
import ssl
import sys

import websockets


async def echo(ws):
    path = ws.request.path
    await ws.send(f"opened {path}")
    async for message in ws:
        if isinstance(message, bytes):
            await ws.send(message[::-1])
        elif message == "close":
            await ws.close(4001, "asked to")
        else:
            await ws.send("echo: " + message)


async def main():
    context = None
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
    async with websockets.serve(echo, "127.0.0.1", 0, ssl=context) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.sleep(600)


if __name__ == "__main__":
    asyncio.run(main())
