#!/usr/bin/env python3
"""An HTTP/2-only upstream on 127.0.0.1, written on the `h2` library: h2c with prior knowledge, or TLS with ALPN
offering `h2` alone (--tls CERT KEY). Prints "PORT n"; stops by itself after 120 s.

Paths:
  /hello      200 text/plain "hello over h2 from NAME", then trailers x-checksum: sha-ok, grpc-status: 0
  /echo       200 application/json: the request's method, path, authority, te and body (as text)
  /big        200 with 300 000 bytes of "x" (more than a flow-control window), then trailers x-size: 300000
  /reset      the head, part of the body, then RST_STREAM INTERNAL_ERROR
  /refuse     RST_STREAM REFUSED_STREAM before any answer
  /goaway     GOAWAY (last stream 0, ENHANCE_YOUR_CALM) and the connection closed
  /silent     no answer at all
"""
import argparse
import json
import socket
import ssl
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events


def answer(connection, stream_id, request, name, send, pending):
    """Answers one request. Bodies go into `pending` and are sent from the connection's loop as the windows allow."""
    path = request["path"]
    if path == "/hello":
        body = ("hello over h2 from %s\n" % name).encode()
        connection.send_headers(stream_id, [(":status", "200"), ("content-type", "text/plain")])
        pending[stream_id] = [body, [("x-checksum", "sha-ok"), ("grpc-status", "0")]]
    elif path == "/echo":
        body = json.dumps(
            {
                "method": request["method"],
                "path": path,
                "authority": request["authority"],
                "te": request["headers"].get("te", ""),
                "body": request["body"].decode("utf-8", "replace"),
                "server": name,
            }
        ).encode()
        connection.send_headers(
            stream_id, [(":status", "200"), ("content-type", "application/json"), ("content-length", str(len(body)))]
        )
        pending[stream_id] = [body, None]
    elif path == "/big":
        connection.send_headers(stream_id, [(":status", "200"), ("content-type", "text/plain")])
        pending[stream_id] = [b"x" * 300000, [("x-size", "300000")]]
    elif path == "/reset":
        connection.send_headers(stream_id, [(":status", "200"), ("content-type", "text/plain")])
        connection.send_data(stream_id, b"partial")
        send(connection.data_to_send())
        time.sleep(0.05)
        connection.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
    elif path == "/refuse":
        connection.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
    elif path == "/goaway":
        connection.close_connection(error_code=h2.errors.ErrorCodes.ENHANCE_YOUR_CALM, last_stream_id=0)
        send(connection.data_to_send())
        raise ConnectionAbortedError
    elif path == "/silent":
        return
    else:
        body = b"no such path\n"
        connection.send_headers(stream_id, [(":status", "404"), ("content-length", str(len(body)))])
        connection.send_data(stream_id, body, end_stream=True)
    send(connection.data_to_send())


def send_pending(connection, pending):
    """Sends what each stream's window allows of its pending body; a finished body ends its stream (with trailers,
    when it has them). Runs on the connection's one thread: neither the h2 state nor the socket is shared."""
    for stream_id in list(pending):
        body, trailers = pending[stream_id]
        while body:
            room = min(connection.local_flow_control_window(stream_id), connection.max_outbound_frame_size)
            if room <= 0:
                break
            connection.send_data(stream_id, body[:room])
            body = body[room:]
        pending[stream_id][0] = body
        if not body:
            del pending[stream_id]
            if trailers:
                connection.send_headers(stream_id, trailers, end_stream=True)
            else:
                connection.end_stream(stream_id)


def serve_connection(sock, name):
    sock.settimeout(30)
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    connection.initiate_connection()

    def send(data):
        if data:
            sock.sendall(data)

    send(connection.data_to_send())
    requests = {}
    pending = {}
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return
            events = connection.receive_data(data)
            for event in events:
                if isinstance(event, h2.events.RequestReceived):
                    fields = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
                              for k, v in event.headers}
                    requests[event.stream_id] = {
                        "method": fields.get(":method"),
                        "path": fields.get(":path"),
                        "authority": fields.get(":authority"),
                        "headers": fields,
                        "body": b"",
                    }
                elif isinstance(event, h2.events.DataReceived):
                    requests[event.stream_id]["body"] += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                if isinstance(event, h2.events.StreamEnded) or (
                    isinstance(event, h2.events.RequestReceived) and event.stream_ended is not None
                ):
                    request = requests.pop(event.stream_id, None)
                    if request is not None:
                        try:
                            answer(connection, event.stream_id, request, name, send, pending)
                        except ConnectionAbortedError:
                            return
            # WINDOW_UPDATEs just read may let more of a pending body go.
            send_pending(connection, pending)
            send(connection.data_to_send())
    except (OSError, h2.exceptions.ProtocolError):
        return
    finally:
        try:
            sock.close()
        except OSError:
            pass



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="h2")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    arguments = parser.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    context = None
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*arguments.tls)
        context.set_alpn_protocols(["h2"])
    print("PORT %d" % listener.getsockname()[1], flush=True)
    listener.settimeout(1)
    stop_at = time.time() + 120
    while time.time() < stop_at:
        try:
            sock, _ = listener.accept()
        except socket.timeout:
            continue
        if context is not None:
            try:
                sock.settimeout(10)
                sock = context.wrap_socket(sock, server_side=True)
            except (OSError, ssl.SSLError):
                sock.close()
                continue
        threading.Thread(target=serve_connection, args=(sock, arguments.name), daemon=True).start()


if __name__ == "__main__":
    main()
