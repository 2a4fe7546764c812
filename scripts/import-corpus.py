#!/usr/bin/env python3
"""Imports every file of the corpora under Tests/Fixtures/import/ with `orrery import FORMAT`, serves each result
with a real daemon on 127.0.0.1, sends each entry's own request and checks the answer against what the entry says
its source tool answers (status, and body unless the answer is a template). Prints a Markdown table per format
(the one in docs/importing.md) and exits 1 when an imported entry answers otherwise.

    scripts/import-corpus.py                       # every format, the debug build's orrery
    scripts/import-corpus.py --format hoverfly     # one format
    scripts/import-corpus.py --orrery PATH         # another binary

An entry whose request cannot be made from the file (a regex or JSONPath is all it says of the path or body) is
counted as imported but not sent.
"""
import argparse
import base64
import collections
import glob
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"


class Unsendable(Exception):
    """The entry's request cannot be built from what the file says."""


class Daemon:
    def __init__(self, orrery, stubs, scratch):
        ready = os.path.join(scratch, "ready")
        self.log = open(os.path.join(scratch, "stderr.log"), "w+")
        self.process = subprocess.Popen(
            [orrery, "serve", "--host", HOST, "--port", "0", "--stubs", stubs, "--config", os.path.join(scratch, "none"),
             "--offline", "--ready-file", ready], stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 30
        self.port = None
        while time.time() < deadline and self.process.poll() is None:
            if os.path.exists(ready) and open(ready).read().strip():
                self.port = json.load(open(ready))["port"]
                break
            time.sleep(0.02)
        if self.port is None:
            self.log.seek(0)
            raise RuntimeError("the daemon did not start: " + self.log.read()[-2000:])

    def send(self, method, target, headers, body):
        connection = http.client.HTTPConnection(HOST, self.port, timeout=10)
        try:
            connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                connection.putheader(name, value)
            if not any(name.lower() == "host" for name, _ in headers):
                connection.putheader("Host", "%s:%d" % (HOST, self.port))
            if body or method in ("POST", "PUT", "PATCH"):
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def admin(self, method, path, body=b""):
        return self.send(method, path, [("Content-Type", "application/json")], body)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# Hoverfly ------------------------------------------------------------------------------------------------------


def hoverfly_matchers(field):
    """[(kind, value)] of one field, whatever the schema version."""
    if field is None:
        return []
    if isinstance(field, str):
        return [("exact", field)]
    if isinstance(field, list):
        return [(item.get("matcher", "").lower(), item.get("value")) for item in field]
    if isinstance(field, dict):
        return [(key[:-5].lower(), value) for key, value in field.items() if key.endswith("Match") and value is not None]
    return []


def hoverfly_value(field, what, default=None):
    """A value that satisfies the field's matchers (the exact one, a glob with its stars filled)."""
    value = None
    for kind, expected in hoverfly_matchers(field):
        if kind == "exact":
            value = expected
        elif kind == "glob" and isinstance(expected, str):
            value = expected.replace("*", "x") if value is None else value
        elif kind in ("json", "jsonpartial", "xml"):
            value = expected
        elif kind == "array" and isinstance(expected, list):
            value = expected
        elif kind == "regex" and expected in (".*", ""):
            continue
        else:
            raise Unsendable("%s: a %s matcher" % (what, kind))
    return default if value is None else value


def hoverfly_cases(path):
    document = json.load(open(path))
    folder = os.path.dirname(path)
    cases = []
    for pair in document["data"]["pairs"]:
        request, response = pair.get("request", {}), pair.get("response", {})
        try:
            method = hoverfly_value(request.get("method"), "method", "GET")
            host = hoverfly_value(request.get("destination"), "destination")
            target = urllib.parse.quote(hoverfly_value(request.get("path"), "path", "/"), safe="/:@!$&'()*+,;=-._~")
            query = request.get("query")
            items = []
            if isinstance(query, dict) and not any(key.endswith("Match") for key in query):
                for name, field in query.items():
                    value = hoverfly_value(field, "query " + name, "")
                    for one in (value if isinstance(value, list) else [value]):
                        items.append((name, one))
                if items:
                    target += "?" + urllib.parse.urlencode(items)
            else:
                text = hoverfly_value(query, "query", "")
                if text:
                    target += "?" + text
            headers = [] if host is None else [("Host", host)]
            for name, field in (request.get("headers") or {}).items():
                if isinstance(field, list) and all(isinstance(item, str) for item in field):
                    headers += [(name, value) for value in field]
                else:
                    value = hoverfly_value(field, "header " + name, "")
                    headers += [(name, one) for one in (value if isinstance(value, list) else [value])]
            body = request.get("body")
            form = [value for kind, value in hoverfly_matchers(body) if kind == "form"]
            if form:
                fields = [(name, hoverfly_value(field, "form " + name, "")) for name, field in form[0].items()]
                data = urllib.parse.urlencode(fields).encode()
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            else:
                data = (hoverfly_value(body, "body", "") or "").encode()
            state = {}
            for key, value in (request.get("requiresState") or {}).items():
                state[key] = "Started" if "sequence:" in key and value == "1" else value
        except Unsendable as reason:
            cases.append({"unsendable": str(reason)})
            continue
        if response.get("bodyFile"):
            try:
                expected = open(os.path.join(folder, response["bodyFile"]), "rb").read()
            except OSError:
                expected = None
        elif response.get("encodedBody"):
            expected = base64.b64decode(response.get("body", ""))
        else:
            expected = (response.get("body") or "").encode()
        cases.append({"method": method, "target": target, "headers": headers, "body": data, "state": state,
                      "status": response.get("status", 200), "expected": None if response.get("templated") else expected})
    return cases


# Postman -------------------------------------------------------------------------------------------------------


def postman_cases(path):
    document = json.load(open(path))
    variables = {v.get("key", v.get("id")): str(v.get("value", "")) for v in document.get("variable", [])}

    def resolve(text):
        return re.sub(r"\{\{([^}]*)\}\}", lambda m: variables.get(m.group(1), "{{" + m.group(1) + "}}"), text)

    cases = []
    seen = set()

    def walk(items):
        for item in items:
            if "item" in item:
                walk(item["item"])
                continue
            for example in item.get("response", item.get("responses", [])) or []:
                request = example.get("originalRequest") or item.get("request") or {}
                if isinstance(request, str):
                    request = {"url": request}
                url = request.get("url", "/")
                if isinstance(url, dict):
                    raw = url.get("raw")
                    if raw is None:
                        raw = "/" + "/".join(url.get("path", []))
                        query = [q for q in url.get("query", []) if not q.get("disabled")]
                        if query:
                            raw += "?" + "&".join("%s=%s" % (q["key"], q.get("value") or "") for q in query)
                else:
                    raw = url
                raw = resolve(raw)
                raw = raw.split("://", 1)[1] if "://" in raw else raw.lstrip("/") if raw.startswith("//") else raw
                if not raw.startswith("/"):
                    raw = raw[len(re.match(r"[^/?]*", raw).group(0)):]
                target, _, query = raw.partition("?")
                segments = []
                for segment in target.split("/")[1:]:
                    if segment.startswith(":") or re.fullmatch(r"\{\{.*\}\}", segment):
                        segment = "7"
                    segments.append(urllib.parse.quote(urllib.parse.unquote(segment), safe=":@!$&'()*+,;=-._~"))
                target = "/" + "/".join(segments)
                if query:
                    target += "?" + query
                method = (request.get("method") or "GET").upper()
                headers = []
                key = (method, target)
                if key in seen:
                    headers.append(("x-mock-response-name", example.get("name", "")))
                seen.add(key)
                cases.append({"method": method, "target": target, "headers": headers, "body": b"", "state": {},
                              "status": example.get("code", 200), "expected": (example.get("body") or "").encode()})
    walk(document.get("item", []))
    return cases


# MockServer ----------------------------------------------------------------------------------------------------

REGEX_CHARACTERS = set("^$.*+?()[]{}|\\")


def mockserver_plain(text, what):
    if set(text) & REGEX_CHARACTERS - {"."} or text.startswith("!"):
        raise Unsendable("%s: a pattern" % what)
    return text


def mockserver_pairs(field):
    if isinstance(field, dict):
        return [(name, values if isinstance(values, list) else [values]) for name, values in field.items()
                if name != "keyMatchStyle"]
    if isinstance(field, list):
        return [(item["name"], item.get("values", item.get("value", []))) for item in field]
    return []


def mockserver_string_matches(expected, actual):
    """MockServer's string rule: equal, or a regex over the whole value; `!` negates."""
    if expected.startswith("!"):
        return not mockserver_string_matches(expected[1:], actual)
    if expected == actual:
        return True
    try:
        return re.fullmatch(expected, actual, re.S) is not None
    except re.error:
        return False


def mockserver_json_matches(expected, actual, strict):
    """MockServer's JSON body rule: equal when STRICT, else expected objects' members present (lenient)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and (not strict or set(expected) == set(actual)) and all(
            key in actual and mockserver_json_matches(value, actual[key], strict) for key, value in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return False
        if strict:
            return all(mockserver_json_matches(e, a, strict) for e, a in zip(expected, actual))
        remaining = list(actual)
        for item in expected:
            match = next((a for a in remaining if mockserver_json_matches(item, a, strict)), None)
            if match is None:
                return False
            remaining.remove(match)
        return True
    return expected == actual


def mockserver_request_matches(request, case):
    """Whether an expectation's httpRequest accepts a case's request, by MockServer's documented rules."""
    if request.get("method") and not mockserver_string_matches(request["method"], case["method"]):
        return False
    target, _, query = case["target"].partition("?")
    if request.get("path"):
        pattern = re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "[^/]+", request["path"])
        if not mockserver_string_matches(pattern, urllib.parse.unquote(target)):
            return False
    items = urllib.parse.parse_qsl(query, keep_blank_values=True)
    for name, values in mockserver_pairs(request.get("queryStringParameters")):
        for value in values:
            value = value if isinstance(value, str) else value.get("value", "")
            if not any(n == name and mockserver_string_matches(value, v) for n, v in items):
                return False
    for name, values in mockserver_pairs(request.get("headers")):
        for value in values:
            value = value if isinstance(value, str) else value.get("value", "")
            if not any(n.lower() == name.lower() and mockserver_string_matches(value, v) for n, v in case["headers"]):
                return False
    body = request.get("body")
    if body is None:
        return True
    text = case["body"].decode("utf-8", "replace")
    if isinstance(body, str):
        return body == text
    if "type" not in body or body["type"] == "JSON":
        expected = body.get("json", body) if "type" in body else body
        if isinstance(expected, str):
            expected = json.loads(expected)
        try:
            return mockserver_json_matches(expected, json.loads(text), body.get("matchType") == "STRICT")
        except ValueError:
            return False
    if body["type"] == "STRING":
        return body.get("string", "") in text if body.get("subString") else body.get("string", "") == text
    return True


def mockserver_cases(path):
    document = json.load(open(path))
    expectations = document if isinstance(document, list) else [document]
    cases = []
    for expectation in expectations:
        request = expectation.get("httpRequest") or {}
        try:
            method = mockserver_plain(request.get("method") or "GET", "method")
            target = re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "7", request.get("path") or "/")
            target = urllib.parse.quote(mockserver_plain(target, "path"), safe="/:@!$&'()*+,;=-._~")
            query = []
            for name, values in mockserver_pairs(request.get("queryStringParameters")):
                for value in values:
                    query.append((name, mockserver_plain(value if isinstance(value, str) else value.get("value", ""), "query")))
            if query:
                target += "?" + urllib.parse.urlencode(query)
            headers = []
            for name, values in mockserver_pairs(request.get("headers")):
                for value in values:
                    headers.append((name, mockserver_plain(value if isinstance(value, str) else value.get("value", ""), "header")))
            body = request.get("body")
            if body is None:
                data = b""
            elif isinstance(body, str):
                data = body.encode()
            elif "type" not in body:
                data = json.dumps(body).encode()
            elif body["type"] == "JSON" and "json" in body:
                data = (body["json"] if isinstance(body["json"], str) else json.dumps(body["json"])).encode()
            elif body["type"] == "STRING":
                data = body.get("string", "").encode()
            else:
                raise Unsendable("a %s body" % body["type"])
        except Unsendable as reason:
            cases.append({"unsendable": str(reason)})
            continue
        # MockServer answers with the first expectation, by priority then order, that accepts the request.
        case = {"method": method, "target": target, "headers": headers, "body": data}
        ordered = sorted(enumerate(expectations), key=lambda pair: (-pair[1].get("priority", 0), pair[0]))
        winner = next((e for _, e in ordered if mockserver_request_matches(e.get("httpRequest") or {}, case)), expectation)
        response = winner.get("httpResponse")
        if response is None:
            cases.append({"method": method, "target": target, "headers": headers, "body": data, "state": {},
                          "status": None, "expected": None})
            continue
        value = response.get("body")
        if value is None:
            expected = b""
        elif isinstance(value, str):
            expected = value.encode()
        elif "type" in value and value["type"] == "STRING":
            expected = value.get("string", "").encode()
        elif "type" in value and value["type"] == "JSON":
            # MockServer sends a JSON body given as text as that text.
            expected = value["json"].encode() if isinstance(value["json"], str) else value["json"]
        elif "type" in value:
            expected = None
        else:
            expected = value
        status = response.get("statusCode", 200)
        if status in (204, 304):
            expected = b""
        cases.append({"method": method, "target": target, "headers": headers, "body": data, "state": {},
                      "status": status, "expected": expected})
    return cases


# Running -------------------------------------------------------------------------------------------------------

FORMATS = {"hoverfly": (hoverfly_cases, "pairs"), "postman": (postman_cases, "examples"),
           "mockserver": (mockserver_cases, "expectations")}


def reason_kind(line):
    """The reason of a skipped entry without its particulars, to count alike reasons together."""
    reason = line.split(": ", 2)[-1] if ": " in line else line
    reason = re.sub(r"\{\{\s*([\w.]+)[^}]*\}\}", lambda m: "{{" + m.group(1).split(".")[0] + (
        "." + m.group(1).split(".")[1] if m.group(1).startswith("Request.") else "") + " ...}}", reason)
    reason = re.sub(r"(pair|example|expectation) \d+", r"\1 N", reason)
    reason = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", reason)
    return reason.replace("; skipped", "").strip()


def run_format(orrery, name, verbose, round_trip=False):
    build_cases, unit = FORMATS[name]
    files = sorted(glob.glob(os.path.join(ROOT, "Tests/Fixtures/import", name, "*.json")))
    totals = collections.Counter()
    skipped_reasons = collections.Counter()
    failures = []
    for path in files:
        scratch = tempfile.mkdtemp(prefix="orrery-import-corpus-")
        try:
            out = os.path.join(scratch, "stubs")
            result = subprocess.run([orrery, "import", name, path, "--out", out], capture_output=True, text=True)
            match = re.search(r"Imported (\d+) of (\d+)", result.stdout)
            imported = int(match.group(1)) if match else 0
            try:
                entries = int(match.group(2)) if match else len(build_cases(path))
            except ValueError:
                totals["unreadable files"] += 1
                continue
            totals["entries"] += entries
            totals["imported"] += imported
            skipped_lines = [line for line in result.stderr.splitlines() if line.endswith("; skipped")]
            for line in skipped_lines:
                skipped_reasons[reason_kind(line)] += 1
            if not imported:
                continue
            skipped_places = {int(m.group(1)) for m in (re.search(r": (?:pair|expectation) (\d+)", line) for line in skipped_lines) if m}
            if round_trip:
                # Out to a Hoverfly simulation and in again: the second import must answer as the first.
                exported = os.path.join(scratch, "exported.json")
                subprocess.run([orrery, "export", "hoverfly", "--stubs", out, "--out", exported], capture_output=True)
                out = os.path.join(scratch, "again")
                again = subprocess.run([orrery, "import", "hoverfly", exported, "--out", out], capture_output=True, text=True)
                if again.returncode != 0:
                    failures.append("%s: the exported simulation did not import again: %s" % (os.path.basename(path), again.stderr[-500:]))
                    continue
            try:
                daemon = Daemon(orrery, out, scratch)
            except RuntimeError as error:
                failures.append("%s: %s" % (os.path.basename(path), error))
                continue
            try:
                for position, case in enumerate(build_cases(path), start=1):
                    if position in skipped_places:
                        continue
                    if "unsendable" in case:
                        totals["unsent"] += 1
                        continue
                    daemon.admin("POST", "/__admin/scenarios/reset")
                    for key, state in case["state"].items():
                        daemon.admin("PUT", "/__admin/scenarios/" + urllib.parse.quote(key, safe=""),
                                     json.dumps({"state": state}).encode())
                    try:
                        status, body = daemon.send(case["method"], case["target"], case["headers"], case["body"])
                    except (http.client.HTTPException, ConnectionError):
                        status, body = None, b""
                    expected = case["expected"]
                    if isinstance(expected, (dict, list)):
                        try:
                            holds_body = json.loads(body) == expected
                        except ValueError:
                            holds_body = False
                    else:
                        holds_body = expected is None or body == expected
                    holds = status == case["status"] and holds_body
                    if holds:
                        totals["answered"] += 1
                    else:
                        failures.append("%s %s %d: %s %s answered %d %r, expected %d %r" % (
                            os.path.basename(path), unit[:-1], position, case["method"], case["target"], status,
                            body[:120], case["status"], str(case["expected"] or b"")[:120]))
            finally:
                daemon.stop()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return files, totals, skipped_reasons, failures


def large(orrery, count):
    """Imports a generated simulation of `count` pairs and prints the time and peak memory it took."""
    scratch = tempfile.mkdtemp(prefix="orrery-import-large-")
    try:
        pairs = [{"request": {"method": [{"matcher": "exact", "value": "GET"}],
                              "path": [{"matcher": "exact", "value": "/items/%d" % i}],
                              "destination": [{"matcher": "exact", "value": "api.example.com"}],
                              "query": {"page": [{"matcher": "exact", "value": str(i % 7)}]}},
                  "response": {"status": 200, "body": json.dumps({"id": i, "name": "item %d" % i}),
                               "headers": {"Content-Type": ["application/json"]}}} for i in range(count)]
        simulation = os.path.join(scratch, "large.json")
        with open(simulation, "w") as out:
            json.dump({"data": {"pairs": pairs}, "meta": {"schemaVersion": "v5"}}, out)
        started = time.time()
        child = subprocess.Popen([orrery, "import", "hoverfly", simulation, "--out", os.path.join(scratch, "stubs")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        print(child.stdout.read().strip())
        print("%d pairs (%.0f MB of JSON): %.1f s, %.0f MB peak memory, exit %d" % (
            count, os.path.getsize(simulation) / 1e6, time.time() - started, usage.ru_maxrss / 1024, status >> 8))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orrery", help="the orrery binary (default: the debug build)")
    parser.add_argument("--format", choices=sorted(FORMATS), action="append")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--round-trip", action="store_true",
                        help="export each import with 'orrery export hoverfly', import that again, and check its answers")
    parser.add_argument("--large", type=int, metavar="N",
                        help="instead: import a generated simulation of N pairs and print the time and memory")
    options = parser.parse_args()
    orrery = options.orrery or os.path.join(
        subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip(), "orrery")
    if options.large:
        large(orrery, options.large)
        return
    failed = False
    for name in options.format or sorted(FORMATS):
        files, totals, reasons, failures = run_format(orrery, name, options.verbose, options.round_trip)
        unit = FORMATS[name][1]
        entries = totals["entries"]
        share = lambda n: "%d (%.0f%%)" % (n, 100.0 * n / entries) if entries else "0"
        print("### %s%s: %d files, %d %s\n" % (name, " (round trip through export hoverfly)" if options.round_trip else "",
                                           len(files), entries, unit))
        print("| | %s |\n|---|---|" % unit)
        print("| imported | %s |" % share(totals["imported"]))
        print("| imported, sent and answered as the source says | %s |" % share(totals["answered"]))
        print("| imported, request not made by this script (regex, JSONPath or XPath only) | %s |" % share(totals["unsent"]))
        print("| imported, answered otherwise | %s |" % share(len(failures)))
        print("| not imported | %s |\n" % share(entries - totals["imported"]))
        if totals["unreadable files"]:
            print("%d file(s) are not valid JSON and were refused whole, with the line of the error.\n" % totals["unreadable files"])
        if reasons:
            print("| not imported because | %s |\n|---|---|" % unit)
            for reason, count in reasons.most_common():
                print("| %s | %d |" % (reason.replace("|", "\\|"), count))
            print()
        for failure in failures:
            print("- " + failure)
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
