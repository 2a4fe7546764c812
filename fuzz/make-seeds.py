#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets built on the whole of OrreryCore (stubs, matcher, regex, har,
template, graphql) from the repository's stubs/ and tests: stub files, the stub text in the tests, the regex cases of the
regex tests, the HAR fixtures cut into one entry each, and the templates of the template tests.

    python3 fuzz/make-seeds.py      # rewrites fuzz/corpus/{stubs,matcher,regex,har,template,graphql}/seed-*

Inputs are split into parts at the byte 0x01 (see fuzz/support/FuzzSupport.swift); the first byte of most is a
control byte (see each target's header).
"""
import glob
import hashlib
import json
import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
SEP = b"\x01"

REQUESTS = [
    b"GET /api/v1/users/1\nHost: 127.0.0.1:8080\nAccept: application/json\n",
    b"POST /api/v1/token\nContent-Type: application/json\n\n{\"username\": \"ada\", \"password\": \"lovelace\"}",
    b"GET /api/v1/users?page=2&q=ada\nAuthorization: Bearer demo-token-ada\n",
    b"HEAD /health\n",
    b"PUT http://api.example.com/orders/7?x=%20y#frag\nHost: api.example.com\n\n<xml/>",
    b"DELETE /users/%7Bid%7D/posts/\nX-Api-Key: k\n",
]


def swift_literals(path):
    """The multi-line string literals of a Swift file, without interpolations, as their text."""
    source = open(path, encoding="utf-8").read()
    found = []
    for match in re.finditer(r'(#?)"""\n(.*?)\n([ \t]*)"""\1', source, re.S):
        raw, body, indent = match.group(1), match.group(2), match.group(3)
        if "\\(" in body or "\\#(" in body:
            continue
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in body.split("\n")]
        text = "\n".join(lines) + "\n"
        if not raw:
            text = text.replace('\\"', '"').replace("\\t", "\t").replace("\\\\", "\\")
        found.append(text)
    return found


def write(target, seeds):
    folder = os.path.join("fuzz", "corpus", target)
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "seed-*")):
        os.remove(old)
    unique = []
    for seed in seeds:
        if seed not in unique and len(seed) <= 4096:
            unique.append(seed)
    for number, seed in enumerate(unique):
        with open(os.path.join(folder, "seed-%03d" % number), "wb") as out:
            out.write(seed)
    print("%s: %d seeds" % (target, len(unique)))


def load_any(text):
    try:
        return yaml.safe_load(text)
    except Exception:
        return None


# Stub files: the examples, and the stub text the tests load.
stub_texts = []
for path in sorted(glob.glob("stubs/**/*", recursive=True)):
    if path.endswith((".yaml", ".yml", ".json")) and "/bodies/" not in path:
        stub_texts.append((path.endswith(".json"), open(path, encoding="utf-8").read()))
for path in sorted(glob.glob("Tests/**/*.swift", recursive=True)):
    for text in swift_literals(path):
        if re.search(r"\b(request|response|responses|stubs|base)\b\s*\"?:", text):
            stub_texts.append((text.lstrip().startswith(("{", "[")), text))

stub_seeds = []
for position, (is_json, text) in enumerate(stub_texts):
    requests = REQUESTS[position % len(REQUESTS):][:2]
    stub_seeds.append(bytes([1 if is_json else 0]) + text.encode() + b"".join(SEP + r for r in requests))
write("stubs", stub_seeds)

# Request sections, one list per stub file, as JSON (which libyaml reads too) and as YAML.
matcher_seeds = []
regexes = []
for position, (is_json, text) in enumerate(stub_texts):
    document = load_any(text)
    stubs = []
    if isinstance(document, list):
        stubs = document
    elif isinstance(document, dict):
        stubs = document.get("stubs", [document]) if isinstance(document.get("stubs", [document]), list) else []
    sections = [s["request"] for s in stubs if isinstance(s, dict) and isinstance(s.get("request"), dict)]
    if not sections:
        continue
    requests = b"".join(SEP + r for r in REQUESTS[position % len(REQUESTS):][:3])
    if position % 2:
        matcher_seeds.append(b"\x01" + json.dumps(sections).encode() + requests)
    else:
        matcher_seeds.append(b"\x00" + yaml.safe_dump(sections, allow_unicode=True).encode() + requests)
    for section in sections:
        for key in ("urlPattern", "pathPattern"):
            if isinstance(section.get(key), str):
                regexes.append(section[key])
        for match in re.finditer(r"matches['\"]?:\s*['\"]?([^'\"\n}]+)", json.dumps(section)):
            regexes.append(match.group(1).encode().decode("unicode_escape", errors="ignore"))
write("matcher", matcher_seeds)

# Regexes: the regex tests' (pattern, text) cases, and the patterns in the stubs with a path to match.
regex_seeds = []
swift_string = r'(#?)"((?:[^"\\]|\\.)*)"\1'
source = open("Tests/OrreryCoreTests/RegexEngineTests.swift", encoding="utf-8").read()
for match in re.finditer(r"\(" + swift_string + r",\s*" + r'(#?)"((?:[^"\\]|\\.)*)"\3' + r"(?:,\s*(?:true|false))?\)", source):
    pattern, subject = match.group(2), match.group(4)
    if not match.group(1):
        pattern = pattern.replace("\\\\", "\\")
    if not match.group(3):
        subject = re.sub(r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), subject)
        subject = subject.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t").replace("\\\\", "\\")
    regex_seeds.append(pattern.encode() + SEP + subject.encode() + SEP + subject.upper().encode())
for pattern in regexes:
    regex_seeds.append(pattern.encode() + SEP + b"/api/v1/users/42" + SEP + b"/api/v1/users/x?y=1")
write("regex", regex_seeds)

# HAR: each entry of the fixtures as a HAR of its own, and the HAR text in the tests.
har_seeds = []
for position, path in enumerate(sorted(glob.glob("Tests/Fixtures/*.har"))):
    har = json.load(open(path, encoding="utf-8"))
    for number, entry in enumerate(har["log"]["entries"]):
        single = {"log": {"version": "1.2", "entries": [entry]}}
        har_seeds.append(bytes([(position + number) % 4]) + json.dumps(single, separators=(",", ":")).encode())
for path in sorted(glob.glob("Tests/**/*HAR*.swift", recursive=True)):
    for text in swift_literals(path):
        if '"entries"' in text:
            har_seeds.append(b"\x01" + text.encode())
write("har", har_seeds)

# Templates: the template tests' texts, and the templated responses of the stubs.
template_seeds = []
source = open("Tests/OrreryCoreTests/TemplateTests.swift", encoding="utf-8").read()
for match in re.finditer(r"render\(\s*" + swift_string, source):
    text = match.group(2)
    if not match.group(1):
        text = text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    template_seeds.append(b"\x02" + text.encode() + SEP + REQUESTS[0] + SEP + REQUESTS[1])
for is_json, text in stub_texts:
    document = load_any(text)
    stubs = document if isinstance(document, list) else [document]
    for stub in stubs:
        response = stub.get("response") if isinstance(stub, dict) else None
        if not isinstance(response, dict) or not response.get("template"):
            continue
        if "json" in response:
            template_seeds.append(b"\x01" + yaml.safe_dump(response["json"]).encode() + SEP + REQUESTS[1] + SEP + REQUESTS[2])
        elif isinstance(response.get("body"), str):
            template_seeds.append(b"\x00" + response["body"].encode() + SEP + REQUESTS[0] + SEP + REQUESTS[4])
write("template", template_seeds)

# GraphQL: the documents of the oracle test, each with a request that sends it (JSON POST, GET) and one that does not.
graphql_seeds = []
for path in sorted(glob.glob("Tests/Fixtures/graphql/queries/*.graphql")):
    query = open(path, encoding="utf-8").read()
    posted = json.dumps({"query": query, "variables": {"id": "u-1"}}).encode()
    graphql_seeds.append(query.encode() + SEP + b"POST /graphql\nContent-Type: application/json\n\n" + posted)
    graphql_seeds.append(query.encode() + SEP + b"GET /graphql?query=%7B%20a%20%7D&variables=%7B%7D\n")
    graphql_seeds.append(query.encode() + SEP + b"POST /graphql\nContent-Type: application/graphql\n\n" + query.encode())
write("graphql", graphql_seeds)
