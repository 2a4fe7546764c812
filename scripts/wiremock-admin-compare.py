#!/usr/bin/env python3
"""Sends the same WireMock admin calls to WireMock itself and to Orrery's --wiremock-port, and compares the answers.

    scripts/wiremock-admin-compare.py [--orrery PATH] [--jar PATH]

WireMock 2.35 (the standalone jar the PyPI package `wiremock` ships) and `orrery serve --wiremock-port 0` are
started side by side; each call of the sequence below goes to both, with the same body and the same mapping ids.
Compared: the status, and the JSON's structure: every key WireMock's answer has, Orrery's must have, with a value of
the same JSON type, recursively (lists by their length and their items). Values are not compared (ids, dates,
timings, distances differ by nature); Orrery may add keys. Prints each call and its differences; exits 1 when any.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("wiremock_compare", os.path.join(HERE, "wiremock-compare.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
A = "8c2a7d0e-54a3-4b57-9d0a-4a4f3b0c1a01"
B = "8c2a7d0e-54a3-4b57-9d0a-4a4f3b0c1a02"
C = "8c2a7d0e-54a3-4b57-9d0a-4a4f3b0c1a03"

MAPPING_A = {"id": A, "request": {"method": "GET", "url": "/a"},
             "response": {"status": 200, "body": "a", "headers": {"Content-Type": "text/plain"}},
             "metadata": {"team": "payments", "tags": ["x"]}}
MAPPING_B = {"id": B, "priority": 1, "scenarioName": "flow", "requiredScenarioState": "Started",
             "newScenarioState": "two", "request": {"method": "GET", "urlPath": "/flow"},
             "response": {"status": 200, "jsonBody": {"step": 1}}}
MAPPING_C = {"id": C, "request": {"method": "POST", "urlPathPattern": "/orders/[0-9]+",
                                  "bodyPatterns": [{"equalToJson": {"sku": "s-1"}, "ignoreExtraElements": True}]},
             "response": {"status": 201}, "metadata": {"team": "orders"}}

# (method, path, body, how): how is "json" (compare structure), "status" (the status alone), "text" (the status and
# WireMock's miss text), "traffic" (a request to the stubs, compared by status and body).
SEQUENCE = [
    ("POST", "/__admin/mappings", MAPPING_A, "json"),
    ("POST", "/__admin/mappings", MAPPING_B, "json"),
    ("GET", "/__admin/mappings", None, "json"),
    ("GET", f"/__admin/mappings/{A}", None, "json"),
    ("PUT", f"/__admin/mappings/{A}", dict(MAPPING_A, response={"status": 200, "body": "a2"}), "json"),
    ("POST", "/__admin/mappings/import", {"mappings": [MAPPING_C]}, "status"),
    ("GET", "/a", None, "traffic"),
    ("GET", "/flow", None, "traffic"),
    ("GET", "/flow", None, "traffic"),
    ("POST", "/orders/7", {"sku": "s-1", "count": 2}, "traffic"),
    ("GET", "/missing?q=1", None, "text"),
    ("GET", "/__admin/requests", None, "json"),
    ("POST", "/__admin/requests/count", {"method": "GET", "url": "/a"}, "json"),
    ("POST", "/__admin/requests/find", {"method": "GET", "urlPathPattern": "/fl.*"}, "json"),
    ("GET", "/__admin/requests/unmatched", None, "json"),
    ("GET", "/__admin/requests/unmatched/near-misses", None, "json-first"),
    ("POST", "/__admin/near-misses/request", {"url": "/b", "method": "GET"}, "json-first"),
    ("POST", "/__admin/near-misses/request-pattern", {"url": "/b", "method": "GET"}, "json-first"),
    ("GET", "/__admin/scenarios", None, "json"),
    ("PUT", "/__admin/scenarios/flow/state", {"state": "Started"}, "json"),
    ("PUT", "/__admin/scenarios/nothing/state", {"state": "Started"}, "json"),
    ("POST", "/__admin/scenarios/reset", None, "json"),
    ("POST", "/__admin/mappings/find-by-metadata", {"matchesJsonPath": "$.team"}, "json"),
    ("POST", "/__admin/mappings/find-by-metadata", {"matchesJsonPath": {"expression": "$.team", "equalTo": "orders"}}, "json"),
    ("GET", "/__admin/settings", None, "status"),
    ("POST", "/__admin/settings", {"fixedDelay": 0}, "status"),
    ("GET", "/__admin/recordings/status", None, "json"),
    # Started and stopped with no miss in between: nothing is forwarded, so neither needs the target to answer.
    ("POST", "/__admin/recordings/start", {"targetBaseUrl": "http://127.0.0.1:9"}, "json"),
    ("GET", "/__admin/recordings/status", None, "json"),
    ("POST", "/__admin/recordings/stop", None, "json"),
    ("GET", "/__admin/recordings/status", None, "json"),
    ("POST", "/__admin/recordings/stop", None, "status"),
    ("POST", "/__admin/requests/remove", {"method": "GET", "url": "/missing?q=1"}, "json"),
    ("POST", "/__admin/mappings/remove-by-metadata", {"matchesJsonPath": {"expression": "$.team", "equalTo": "orders"}}, "json"),
    ("DELETE", f"/__admin/mappings/{A}", None, "json"),
    ("GET", f"/__admin/mappings/{A}", None, "status"),
    ("DELETE", "/__admin/requests", None, "json"),
    ("POST", "/__admin/reset", None, "status"),
    ("GET", "/__admin/mappings", None, "json"),
    ("GET", "/__admin/requests", None, "json"),
    ("POST", "/__admin/mappings", {"request": {"bad": 1}, "response": {"status": 200}}, "json"),
]


def send(port, method, path, body):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    try:
        with OPENER.open(request, timeout=20) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


def structure(expected, actual, where, first_only=False):
    """Where `actual` lacks what `expected` has: keys, JSON types, list lengths."""
    if kind(expected) != kind(actual):
        return [f"{where}: {kind(expected)} in WireMock, {kind(actual)} in Orrery"]
    found = []
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key}: missing in Orrery")
            elif first_only and key == "stubMapping":
                # The closest mapping may be another one: distances are worked out differently.
                continue
            else:
                found += structure(value, actual[key], f"{where}.{key}", first_only)
    elif isinstance(expected, list):
        if not first_only and len(expected) != len(actual):
            found.append(f"{where}: {len(expected)} items in WireMock, {len(actual)} in Orrery")
        if expected and actual:
            found += structure(expected[0], actual[0], f"{where}[0]", first_only)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orrery", default=os.path.join(HERE, "..", ".build", "debug", "orrery"))
    parser.add_argument("--jar")
    options = parser.parse_args()
    jar = compare.find_jar(options.jar)
    work = tempfile.mkdtemp(prefix="wiremock-admin-compare-")
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "mappings"))
    os.makedirs(os.path.join(root, "__files"))
    stubs = os.path.join(work, "no-stubs")
    os.makedirs(stubs)
    wiremock = compare.Server(
        ["java", "-Xss512k", "-XX:TieredStopAtLevel=1", "-jar", jar, "--bind-address", "127.0.0.1", "--port", "0",
         "--root-dir", root, "--disable-banner"], os.path.join(work, "wiremock.log"), None, r"^port:\s+(\d+)")
    orrery = None
    try:
        ready = os.path.join(work, "orrery.ready")
        orrery = compare.Server(
            [options.orrery, "serve", "--port", "0", "--wiremock-port", "0", "--stubs", stubs, "--offline",
             "--watch-interval", "0", "--log-level", "warning", "--ready-file", ready, "--exit-on-stdin-eof"],
            os.path.join(work, "orrery.log"), ready, r'"wiremockPort":(\d+)')
        differences = 0
        for method, path, body, how in SEQUENCE:
            expected_status, expected_text = send(wiremock.port, method, path, body)
            status, text = send(orrery.port, method, path, body)
            found = []
            if status != expected_status:
                found.append(f"status {expected_status} in WireMock, {status} in Orrery")
            missed = "Request was not matched" in expected_text
            if how == "traffic" and not missed and text != expected_text:
                found.append(f"body {expected_text!r} in WireMock, {text!r} in Orrery")
            if how in ("text", "traffic") and missed != ("Request was not matched" in text):
                found.append("WireMock's 'Request was not matched' text differs")
            if how.startswith("json") and expected_text.strip():
                try:
                    found += structure(json.loads(expected_text), json.loads(text or "null"), "$", how == "json-first")
                except json.JSONDecodeError as error:
                    found.append(f"not JSON in Orrery: {error}: {text[:200]!r}")
            print(f"{'same' if not found else 'DIFFERS'}  {method} {path}")
            for line in found:
                print(f"    {line}")
            differences += len(found)
        print(f"{len(SEQUENCE)} calls, {differences} differences")
        return 1 if differences else 0
    finally:
        if orrery:
            orrery.stop()
        wiremock.stop()


if __name__ == "__main__":
    sys.exit(main())
