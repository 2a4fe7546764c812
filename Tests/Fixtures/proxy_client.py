#!/usr/bin/env python3
"""Sends requests through an HTTP proxy on one kept-alive connection, with requests or with http.client.

    proxy_client.py PROXY_PORT requests|http.client < requests.json > answers.json

Reads a JSON list of {"method", "url" (absolute), "headers": {...}, "body": text}; sends them one after another through
the proxy at 127.0.0.1:PROXY_PORT, in absolute form. `requests`: one Session with the proxy configured (and nothing
taken from the environment); the connections it opened are counted from urllib3's log. `http.client`: one
HTTPConnection to the proxy; its connections are counted by the local ports used. Prints {"connections", "errors",
"answers": [{"status", "headers", "body"}, ...]}. Every request gives up after 10 s.
"""
import http.client
import json
import logging
import sys


class ConnectionCounter(logging.Handler):
    """Counts the connections urllib3 opens, new or to replace one the server dropped."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Starting new HTTP connection") or message.startswith("Resetting dropped connection"):
            self.count += 1


def with_requests(port, requests_to_send):
    import requests

    counter = ConnectionCounter()
    log = logging.getLogger("urllib3.connectionpool")
    log.setLevel(logging.DEBUG)
    log.addHandler(counter)
    session = requests.Session()
    session.trust_env = False
    session.proxies = {"http": "http://127.0.0.1:%d" % port}
    answers, errors = [], []
    for request in requests_to_send:
        try:
            response = session.request(request["method"], request["url"], headers=request.get("headers", {}),
                                       data=request.get("body") or None, timeout=10)
            answers.append({"status": response.status_code, "headers": dict(response.headers), "body": response.text})
        except Exception as error:  # reported, not raised: the test says what went wrong
            errors.append("%s %s: %r" % (request["method"], request["url"], error))
            answers.append(None)
    session.close()
    return counter.count, errors, answers


def with_http_client(port, requests_to_send):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    local_ports = set()
    answers, errors = [], []
    for request in requests_to_send:
        try:
            body = request.get("body") or None
            connection.request(request["method"], request["url"], body=body, headers=request.get("headers", {}))
            response = connection.getresponse()
            data = response.read()
            # Read after the answer: http.client drops a socket the server said it would close.
            local_ports.add(connection.sock.getsockname()[1] if connection.sock else "closed")
            answers.append({"status": response.status, "headers": dict(response.getheaders()),
                            "body": data.decode("utf-8")})
        except Exception as error:
            errors.append("%s %s: %r" % (request["method"], request["url"], error))
            answers.append(None)
    connection.close()
    return len(local_ports), errors, answers


def main():
    port = int(sys.argv[1])
    client = with_requests if sys.argv[2] == "requests" else with_http_client
    connections, errors, answers = client(port, json.load(sys.stdin))
    json.dump({"connections": connections, "errors": errors, "answers": answers}, sys.stdout)


if __name__ == "__main__":
    main()
