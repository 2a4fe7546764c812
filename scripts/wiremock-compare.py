#!/usr/bin/env python3
"""Serves WireMock roots with WireMock itself and with Orrery (--wiremock-root), sends each mapping's request
(derived from the mapping) and a variation that should miss to both, and compares what a client receives:
the status, the headers the mapping sets (and Content-Type), and the body.

    scripts/wiremock-compare.py [--corpus Tests/Fixtures/wiremock] [--orrery PATH] [--jar PATH]
                                [--limit N] [--json OUT] [--markdown OUT]

The jar is the standalone WireMock that the `wiremock` package on PyPI ships (scripts/install-dependencies.sh
--with-test-tools installs it); Java 11 or later runs it. Everything binds 127.0.0.1 on ports the system picks.
Exits 1 when a served mapping answers differently, 0 otherwise.
"""
import argparse
import base64
import glob
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def find_jar(given):
    if given:
        return given
    try:
        import wiremock  # noqa: F401  (the package's folder holds the jar)
        folder = os.path.join(os.path.dirname(wiremock.__file__), "server")
        jars = sorted(glob.glob(os.path.join(folder, "wiremock-standalone-*.jar")))
        if jars:
            return jars[-1]
    except ImportError:
        pass
    sys.exit("wiremock-compare: no WireMock jar; pip install wiremock, or pass --jar")


def wait_for_line(path, pattern, process, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            break
        try:
            with open(path) as handle:
                found = re.search(pattern, handle.read(), re.M)
                if found:
                    return found
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    with open(path) as handle:
        raise StartFailure(handle.read()[-2000:])


class StartFailure(Exception):
    pass


class Server:
    """A server process on 127.0.0.1, stopped by its pid."""

    def __init__(self, command, log, ready, port_from):
        self.log = log
        self.process = subprocess.Popen(command, stdout=open(log, "w"), stderr=subprocess.STDOUT, stdin=subprocess.PIPE)
        try:
            found = wait_for_line(ready or log, port_from, self.process)
        except StartFailure:
            self.stop()
            raise
        self.port = int(found.group(1))

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_wiremock(jar, root, work):
    log = os.path.join(work, "wiremock.log")
    command = ["java", "-Xss512k", "-XX:TieredStopAtLevel=1", "-jar", jar, "--bind-address", "127.0.0.1", "--port", "0",
               "--root-dir", root, "--disable-banner", "--no-request-journal", "--async-response-enabled", "false",
               # WireMock 3 renders templates of mappings that ask for it; 2.35 only with this flag.
               "--local-response-templating"]
    return Server(command, log, None, r"^port:\s+(\d+)")


def start_orrery(binary, root, work):
    log = os.path.join(work, "orrery.log")
    ready = os.path.join(work, "orrery.ready")
    if os.path.exists(ready):
        os.remove(ready)
    empty = os.path.join(work, "no-stubs")
    os.makedirs(empty, exist_ok=True)
    command = [binary, "serve", "--port", "0", "--stubs", empty, "--wiremock-root", root, "--no-proxy", "--offline",
               "--watch-interval", "0", "--log-level", "warning", "--ready-file", ready, "--exit-on-stdin-eof"]
    return Server(command, log, ready, r'"port":(\d+)')


# --- Requests derived from mappings -------------------------------------------------------------------------


class NotDerivable(Exception):
    pass


def sample(pattern):
    """A text that the (Java) regex matches in whole, for the common shapes mappings use; checked with Python's re."""
    out = []
    i = 0
    n = len(pattern)

    def atom_at(i):
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1]
            table = {"d": "1", "w": "a", "s": " ", "D": "x", "W": "-", "S": "x"}
            return table.get(e, e), i + 2
        if c == "[":
            j = i + 1
            negated = j < n and pattern[j] == "^"
            if negated:
                j += 1
            body = ""
            while j < n and (pattern[j] != "]" or body == ""):
                body += pattern[j]
                j += 1
            if negated:
                for candidate in "x1a-":
                    if candidate not in body:
                        return candidate, j + 1
                raise NotDerivable(pattern)
            first = body[0]
            if first == "\\":
                return {"d": "1", "w": "a", "s": " "}.get(body[1], body[1]), j + 1
            return first, j + 1
        if c == "(":
            depth = 0
            j = i
            while j < n:
                if pattern[j] == "\\":
                    j += 2
                    continue
                if pattern[j] == "(":
                    depth += 1
                elif pattern[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            inner = pattern[i + 1:j]
            if inner.startswith("?:"):
                inner = inner[2:]
            elif inner.startswith("?"):
                raise NotDerivable(pattern)
            return sample(top_alternative(inner)), j + 1
        if c == ".":
            return "x", i + 1
        if c in "^$":
            return "", i + 1
        return c, i + 1

    pattern_alternative = top_alternative(pattern)
    pattern = pattern_alternative
    n = len(pattern)
    while i < n:
        text, i = atom_at(i)
        if i < n and pattern[i] in "*+?{":
            q = pattern[i]
            if q == "{":
                close = pattern.index("}", i)
                low = int(pattern[i + 1:close].split(",")[0] or 0)
                i = close + 1
            else:
                low = {"*": 0, "+": 1, "?": 0}[q]
                i += 1
            if i < n and pattern[i] in "?+":
                i += 1
            # One repetition where the pattern allows none: a header value of "Bearer " would lose its space.
            text = text * (max(low, 1) if q in "*+" else low)
        out.append(text)
    return "".join(out)


def top_alternative(pattern):
    depth = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "|" and depth == 0:
            return pattern[:i]
        i += 1
    return pattern


def matching(regex):
    text = sample(regex)
    try:
        if re.fullmatch(regex, text, re.S):
            return text
    except re.error:
        pass
    raise NotDerivable(regex)


def value_for(matcher):
    """A value a WireMock value matcher accepts, or None for one that must be absent."""
    if isinstance(matcher, str):
        return matcher
    if not isinstance(matcher, dict):
        raise NotDerivable(matcher)
    if "equalTo" in matcher:
        return str(matcher["equalTo"])
    if "contains" in matcher:
        return str(matcher["contains"])
    if "matches" in matcher:
        return matching(matcher["matches"])
    if "doesNotMatch" in matcher or "doesNotContain" in matcher:
        return "zz-other"
    if "absent" in matcher:
        if matcher["absent"]:
            return None
        return "x"
    if "and" in matcher:
        for item in matcher["and"]:
            if "equalTo" in item or "matches" in item or "contains" in item:
                return value_for(item)
    if "or" in matcher:
        return value_for(matcher["or"][0])
    raise NotDerivable(matcher)


def merge(left, right):
    if isinstance(left, dict) and isinstance(right, dict):
        out = dict(left)
        for key, value in right.items():
            out[key] = merge(out[key], value) if key in out else value
        return out
    return right


def body_for(patterns):
    if not patterns:
        return None
    if len(patterns) > 1 and all("matchesJsonPath" in p for p in patterns):
        document = {}
        for pattern in patterns:
            document = merge(document, json.loads(body_for([pattern])))
        return json.dumps(document).encode()
    pattern = patterns[0]
    if "equalToJson" in pattern:
        value = pattern["equalToJson"]
        text = value if isinstance(value, str) else json.dumps(value)
        return text.replace('"${json-unit.ignore}"', '"x"').encode()
    if "equalTo" in pattern:
        return str(pattern["equalTo"]).encode()
    if "binaryEqualTo" in pattern:
        return base64.b64decode(pattern["binaryEqualTo"])
    if "contains" in pattern:
        return str(pattern["contains"]).encode()
    if "matches" in pattern:
        return matching(pattern["matches"]).encode()
    if "matchesJsonPath" in pattern:
        spec = pattern["matchesJsonPath"]
        expression = spec if isinstance(spec, str) else spec.get("expression", "")
        # A filter on an object: `$.a[?(@.b =~ /re/)]` or `$.a[?(@.b == 'x')]` holds for {"a": {"b": <a match>}}.
        filtered = re.match(r"^\$((?:\.[A-Za-z_][\w-]*)*)\[\?\(@\.([A-Za-z_][\w-]*)\s*(=~|==)\s*(?:/(.*)/|'(.*)')\)\]$", expression)
        if filtered:
            outer, field, operator, regex, literal = filtered.groups()
            document = {field: matching(regex) if operator == "=~" else literal}
            for name in reversed([part for part in outer.split(".") if part]):
                document = {name: document}
            return json.dumps(document).encode()
        names = re.findall(r"\.([A-Za-z_][\w-]*)|\['([^']+)'\]", expression)
        if not expression.startswith("$") or not names or "?" in expression:
            raise NotDerivable(expression)
        leaf = "x"
        if isinstance(spec, dict) and "equalTo" in spec:
            leaf = spec["equalTo"]
        elif isinstance(spec, dict) and "contains" in spec:
            leaf = spec["contains"]
        elif isinstance(spec, dict) and "matches" in spec:
            leaf = matching(spec["matches"])
        document = leaf
        for plain, quoted in reversed(names):
            document = {plain or quoted: document}
        return json.dumps(document).encode()
    raise NotDerivable(pattern)


def derive(mapping):
    request = mapping.get("request", {})
    method = request.get("method", "GET")
    if method == "ANY":
        method = "GET"
    query = []
    for name, matcher in (request.get("queryParameters") or {}).items():
        value = value_for(matcher)
        if value is not None:
            query.append((name, value))
    from urllib.parse import quote
    encoded_query = "&".join(f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in query)
    if "url" in request:
        target = request["url"]
    elif "urlPath" in request:
        target = request["urlPath"] + ("?" + encoded_query if encoded_query else "")
    elif "urlPathTemplate" in request:
        parameters = request.get("pathParameters") or {}
        path = re.sub(r"\{([^}]+)\}", lambda m: quote(value_for(parameters[m.group(1)]) if m.group(1) in parameters else "1", safe=""),
                      request["urlPathTemplate"])
        target = path + ("?" + encoded_query if encoded_query else "")
    elif "urlPathPattern" in request:
        target = matching(request["urlPathPattern"]) + ("?" + encoded_query if encoded_query else "")
    elif "urlPattern" in request:
        target = matching(request["urlPattern"])
    else:
        target = "/any/path" + ("?" + encoded_query if encoded_query else "")
    if not target.startswith("/"):
        raise NotDerivable(target)
    headers = {}
    for name, matcher in (request.get("headers") or {}).items():
        value = value_for(matcher)
        if value is not None:
            headers[name] = value
    credentials = request.get("basicAuthCredentials")
    if credentials:
        token = base64.b64encode(f"{credentials['username']}:{credentials['password']}".encode()).decode()
        headers["Authorization"] = "Basic " + token
    cookies = request.get("cookies") or {}
    if cookies:
        headers["Cookie"] = "; ".join(f"{name}={value_for(matcher)}" for name, matcher in cookies.items())
    body = body_for(request.get("bodyPatterns"))
    return method, target, headers, body


# --- Sending and comparing -----------------------------------------------------------------------------------


def send(port, method, target, headers, body, timeout=15):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        return {"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()}, "body": data}
    except (ConnectionError, http.client.HTTPException, socket.timeout, OSError) as error:
        return {"error": type(error).__name__}
    finally:
        connection.close()


def admin(port, method, path):
    send(port, method, path, {"Content-Type": "application/json"}, b"")


UNSTABLE = re.compile(r"\{\{[^}]*(now|date|random|uuid|UUID|pickRandom)", re.S)


def shape(body):
    return len(body), re.sub(rb"[A-Za-z0-9]+", b"", body)


def normalised_json(data):
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


def compare(mapping, wiremock, orrery):
    """None when a client sees the same; else the kind of difference."""
    if "error" in wiremock or "error" in orrery:
        if "error" in wiremock and "error" in orrery:
            return None
        return "fault: " + ("WireMock " + wiremock.get("error", str(wiremock.get("status"))) + ", Orrery " + orrery.get("error", str(orrery.get("status"))))
    if wiremock["status"] != orrery["status"]:
        return f"status: WireMock {wiremock['status']}, Orrery {orrery['status']}"
    if wiremock["status"] == 404 and not mapping:
        return None
    if wiremock["status"] == 404 and b"Request was not matched" in wiremock["body"]:
        return "both miss"
    response = (mapping or {}).get("response", {})
    names = {name.lower() for name in (response.get("headers") or {})} | {"content-type"}
    for name in sorted(names):
        if wiremock["headers"].get(name) != orrery["headers"].get(name):
            if name == "content-type" and "content-type" not in wiremock["headers"]:
                return "header content-type: Orrery adds one"
            return f"header {name}: WireMock {wiremock['headers'].get(name)!r}, Orrery {orrery['headers'].get(name)!r}"
    if wiremock["body"] != orrery["body"]:
        templated = "response-template" in (response.get("transformers") or [])
        text = json.dumps(response)
        if templated and UNSTABLE.search(text):
            # A time or random value differs from run to run by design: its shape must not (the same length,
            # and the same text around the letters and digits).
            if shape(wiremock["body"]) == shape(orrery["body"]):
                return None
            return "body: another shape of a time or random value"

        if normalised_json(wiremock["body"]) is not None and normalised_json(wiremock["body"]) == normalised_json(orrery["body"]):
            return "body: same JSON, other spacing"
        return "body"
    return None


def mappings_of(root):
    found = []
    for path in sorted(glob.glob(os.path.join(root, "mappings", "**", "*.json"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            try:
                document = json.load(handle)
            except ValueError:
                continue
        items = document.get("mappings") if isinstance(document, dict) and "mappings" in document else [document]
        for index, item in enumerate(items):
            if isinstance(item, dict) and "request" in item:
                where = "$" if "mappings" not in document else f"$.mappings[{index}]"
                found.append((os.path.relpath(path, root), where, item))
    return found


def served_issues(binary, root):
    """The mappings Orrery reports as not served, from `orrery validate`."""
    result = subprocess.run([binary, "validate", "--wiremock-root", root], capture_output=True, text=True)
    skipped = {}
    for line in result.stderr.splitlines():
        match = re.match(r"^(.*?):\d+: (\$[^:]*): (.*) \(mapping not served\)$", line)
        if match:
            path, json_path, reason = match.groups()
            mapping_path = re.match(r"^\$(\.mappings\[\d+\])?", json_path).group(0)
            skipped.setdefault((os.path.relpath(path, root), mapping_path), reason)
    return skipped


def compare_root(arguments, jar, root, shown_root, only):
    """Compares the mappings of one root; `shown_root` is the corpus folder results are listed under."""
    results = []
    skipped = served_issues(arguments.orrery, root)
    with tempfile.TemporaryDirectory() as work:
        wiremock = start_wiremock(jar, root, work)
        try:
            orrery = start_orrery(arguments.orrery, root, work)
        except StartFailure:
            wiremock.stop()
            raise
        try:
            for relative, json_path, mapping in mappings_of(root):
                entry = {"root": os.path.relpath(shown_root, arguments.corpus), "file": relative, "mapping": json_path}
                if (relative, json_path) in skipped:
                    entry.update(outcome="not served", reason=skipped[(relative, json_path)])
                    results.append(entry)
                    continue
                if isinstance(mapping.get("response"), dict) and "proxyBaseUrl" in mapping["response"]:
                    # Its answer is its upstream's, and neither server here has one to forward to.
                    entry.update(outcome="proxies", reason="forwards to proxyBaseUrl; no upstream in this comparison")
                    results.append(entry)
                    continue
                try:
                    method, target, headers, body = derive(mapping)
                except (NotDerivable, KeyError, ValueError, TypeError, IndexError) as error:
                    entry.update(outcome="no request", reason=f"no request could be derived ({str(error)[:80]})")
                    results.append(entry)
                    continue
                differences = []
                for variation, (m, t) in (("request", (method, target)), ("miss", (method, "/zz-not-stubbed" + target))):
                    admin(wiremock.port, "POST", "/__admin/scenarios/reset")
                    admin(orrery.port, "POST", "/__admin/scenarios/reset")
                    expected = send(wiremock.port, m, t, headers, body)
                    actual = send(orrery.port, m, t, headers, body)
                    difference = compare(mapping if variation == "request" else None, expected, actual)
                    if difference and not (variation == "miss" and expected.get("status") != 404):
                        differences.append(f"{variation}: {difference}")
                outcome = "same" if not differences else "differs"
                if differences == ["request: both miss"]:
                    outcome, differences = "no request", ["the derived request matches the mapping in neither server"]
                entry.update(request=f"{method} {target}", outcome=outcome, reason="; ".join(differences))
                results.append(entry)
        finally:
            orrery.stop()
            wiremock.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.join(REPO, "Tests", "Fixtures", "wiremock"))
    parser.add_argument("--orrery", default=os.environ.get("ORRERY_BINARY", os.path.join(REPO, ".build", "debug", "orrery")))
    parser.add_argument("--jar")
    parser.add_argument("--limit", type=int, default=0, help="compare only the first N roots")
    parser.add_argument("--only", action="append", default=[], help="compare only roots whose path holds this (repeatable)")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    arguments = parser.parse_args()
    jar = find_jar(arguments.jar)
    roots = sorted(os.path.dirname(folder.rstrip("/")) for folder in glob.glob(os.path.join(arguments.corpus, "**", "mappings", ""), recursive=True)
                   if os.path.basename(os.path.dirname(os.path.dirname(folder.rstrip("/")))) != "mappings")
    if arguments.only:
        roots = [root for root in roots if any(part in root for part in arguments.only)]
    if arguments.limit:
        roots = roots[:arguments.limit]
    results = []
    for root in roots:
        try:
            results += compare_root(arguments, jar, root, root, None)
        except StartFailure:
            # WireMock refuses a root with one bad file: compare file by file, each in a root of its own.
            for path in sorted(glob.glob(os.path.join(root, "mappings", "**", "*.json"), recursive=True)):
                with tempfile.TemporaryDirectory() as single:
                    relative = os.path.relpath(path, os.path.join(root, "mappings"))
                    os.makedirs(os.path.dirname(os.path.join(single, "mappings", relative)), exist_ok=True)
                    shutil.copy(path, os.path.join(single, "mappings", relative))
                    if os.path.isdir(os.path.join(root, "__files")):
                        os.symlink(os.path.abspath(os.path.join(root, "__files")), os.path.join(single, "__files"))
                    try:
                        results += compare_root(arguments, jar, single, root, relative)
                    except StartFailure as failure:
                        lines = str(failure).splitlines()
                        reason = next((line.strip() for line in lines if re.search(r"Cannot|Unrecognized|not supported|Unexpected|No ", line)), lines[0] if lines else "")
                        for _, json_path, _ in mappings_of(single):
                            results.append({"root": os.path.relpath(root, arguments.corpus), "file": "mappings/" + relative,
                                            "mapping": json_path, "outcome": "WireMock refuses", "reason": reason[:160]})
    counts = {}
    for entry in results:
        counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
    print(json.dumps(counts))
    for entry in results:
        if entry["outcome"] != "same":
            print(f"{entry['outcome']}: {entry['root']}/{entry['file']} {entry['mapping']}: {entry.get('reason', '')}")
    if arguments.json:
        with open(arguments.json, "w") as handle:
            json.dump({"counts": counts, "mappings": results}, handle, indent=1)
    if arguments.markdown:
        with open(arguments.markdown, "w") as handle:
            handle.write("| outcome | mappings |\n|---|---|\n")
            for outcome, count in sorted(counts.items()):
                handle.write(f"| {outcome} | {count} |\n")
    return 1 if counts.get("differs") else 0


if __name__ == "__main__":
    sys.exit(main())
