#!/usr/bin/env python3
"""A plain HTTP/1.1 client for tests that compare answers byte for byte (no decoding, no header rewriting).

    client.py PORT < requests.json > responses.json

Reads a JSON list of {"method", "path", "headers": [[name, value], ...], "body": base64}; sends each on its own
connection to 127.0.0.1:PORT, with a 10 s timeout; prints a JSON list of {"status", "headers": [[name, value], ...],
"body": base64} as received (a gzip body stays gzip).
"""
import base64
import http.client
import json
import sys


def main():
    port = int(sys.argv[1])
    answers = []
    for request in json.load(sys.stdin):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.putrequest(request["method"], request["path"], skip_host=True, skip_accept_encoding=True)
        names = [name.lower() for name, _ in request.get("headers", [])]
        if "host" not in names:
            connection.putheader("Host", "127.0.0.1:%d" % port)
        for name, value in request.get("headers", []):
            connection.putheader(name, value)
        body = base64.b64decode(request.get("body", ""))
        if body or request["method"] in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body if body else None)
        response = connection.getresponse()
        data = response.read()
        answers.append({"status": response.status, "headers": response.getheaders(),
                        "body": base64.b64encode(data).decode()})
        connection.close()
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
