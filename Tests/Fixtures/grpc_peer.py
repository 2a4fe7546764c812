#!/usr/bin/env python3
"""A real gRPC peer (grpcio) on 127.0.0.1, with generic handlers on raw bytes (no generated code).

  grpc_peer.py server            serves orrery.test.Echo and prints "PORT n"; stops by itself after 120 s
  grpc_peer.py client PORT       calls every method through 127.0.0.1:PORT (h2c, as a gRPC client does) and prints
                                 one JSON line per call: method, code, details, responses (hex) and trailing metadata

Methods (requests and responses are raw bytes):
  /orrery.test.Echo/Unary        answers b"echo:" + request, with trailing metadata x-served-by: grpc-peer
  /orrery.test.Echo/Count        server-streaming: request b"N" gives N messages b"item-1".., 60 ms apart
  /orrery.test.Echo/Fail         ends with INVALID_ARGUMENT and the message "no such item: " + request
"""
import json
import sys
import time
from concurrent import futures

import grpc


def identity(data):
    return data


def unary(request, context):
    context.set_trailing_metadata((("x-served-by", "grpc-peer"),))
    return b"echo:" + request


def count(request, context):
    total = int(request.decode() or "3")
    for index in range(1, total + 1):
        if index > 1:
            time.sleep(0.06)
        yield ("item-%d" % index).encode()


def fail(request, context):
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no such item: " + request.decode())


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    handlers = {
        "Unary": grpc.unary_unary_rpc_method_handler(unary, identity, identity),
        "Count": grpc.unary_stream_rpc_method_handler(count, identity, identity),
        "Fail": grpc.unary_unary_rpc_method_handler(fail, identity, identity),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("orrery.test.Echo", handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("PORT %d" % port, flush=True)
    server.wait_for_termination(timeout=120)


def call(channel, kind, method, request):
    path = "/orrery.test.Echo/" + method
    result = {"method": method, "code": "OK", "details": "", "responses": [], "trailers": {}}
    try:
        if kind == "unary":
            stub = channel.unary_unary(path, request_serializer=identity, response_deserializer=identity)
            response, rpc = stub.with_call(request, timeout=10)
            result["responses"] = [response.hex()]
            result["trailers"] = {key: value for key, value in rpc.trailing_metadata() or ()}
        else:
            stub = channel.unary_stream(path, request_serializer=identity, response_deserializer=identity)
            stream = stub(request, timeout=10)
            result["responses"] = [message.hex() for message in stream]
            result["trailers"] = {key: value for key, value in stream.trailing_metadata() or ()}
    except grpc.RpcError as error:
        result["code"] = error.code().name
        result["details"] = error.details() or ""
        result["trailers"] = {key: value for key, value in error.trailing_metadata() or ()}
    return result


def client(port):
    with grpc.insecure_channel("127.0.0.1:%d" % port) as channel:
        for kind, method, request in (
            ("unary", "Unary", b"hello"),
            ("stream", "Count", b"3"),
            ("unary", "Fail", b"42"),
        ):
            print(json.dumps(call(channel, kind, method, request)), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        serve()
    elif sys.argv[1:2] == ["client"] and len(sys.argv) == 3:
        client(int(sys.argv[2]))
    else:
        sys.exit(__doc__)
