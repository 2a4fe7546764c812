#!/usr/bin/env python3
"""Sends requests made from an OpenAPI spec to a running Orrery, and judges the same requests with openapi-core.

Usage: openapi_contract_oracle.py SPEC BASE_URL CASES_JSON

For each case ({method, path, query, headers, cookies, body, contentType}) prints, as one JSON list, what Orrery
answered ({status, contentType, body}) and openapi-core's verdict ({oracleValid, oracleError}; null for Swagger 2.0,
which openapi-core does not read,
and for a document it cannot resolve).
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def send(base, case):
    query = urllib.parse.urlencode([tuple(pair) for pair in case["query"]])
    url = base + case["path"] + ("?" + query if query else "")
    data = case["body"].encode() if case.get("body") is not None else None
    request = urllib.request.Request(url, data=data, method=case["method"])
    for name, value in case["headers"]:
        request.add_header(name, value)
    if case["cookies"]:
        request.add_header("Cookie", "; ".join(f"{name}={value}" for name, value in case["cookies"]))
    if case.get("contentType"):
        request.add_header("Content-Type", case["contentType"])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=20) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode("utf-8", "replace")


def oracle(spec_path):
    try:
        from openapi_core import OpenAPI
        from openapi_core.testing import MockRequest
    except ImportError:
        return None
    with open(spec_path) as handle:
        head = handle.read(4096)
    if '"swagger"' in head or "swagger:" in head:
        return None
    try:
        api = OpenAPI.from_file_path(spec_path)
    except Exception as error:  # a document openapi-core cannot read (swagger-petstore 3.1's $id references)
        print(f"openapi-core cannot read {spec_path}: {type(error).__name__}: {error}", file=sys.stderr)
        return None
    servers = api.spec.get("servers") or [{"url": "/"}]
    server = servers[0]
    url = server["url"]
    for name, variable in (server.get("variables") or {}).items():
        url = url.replace("{" + name + "}", variable.get("default", ""))
    parsed = urllib.parse.urlparse(url)
    host = f"{parsed.scheme}://{parsed.netloc}" if parsed.netloc else "http://localhost"
    base_path = parsed.path.rstrip("/")

    def judge(case):
        from werkzeug.datastructures import ImmutableMultiDict

        request = MockRequest(
            host,
            case["method"].lower(),
            base_path + urllib.parse.unquote(case["path"]),
            args=ImmutableMultiDict([tuple(pair) for pair in case["query"]]),
            headers={name: value for name, value in case["headers"]},
            cookies={name: value for name, value in case["cookies"]},
            data=(case.get("body") or "").encode(),
            content_type=case.get("contentType") or "application/json",
        )
        try:
            api.validate_request(request)
            return True, None
        except Exception as error:  # every refusal, whatever its class, is a verdict
            causes = []
            cause = error
            while cause is not None and len(causes) < 4:
                causes.append(f"{type(cause).__name__}: {cause}")
                cause = cause.__cause__ or (cause.schema_errors[0] if getattr(cause, "schema_errors", None) else None)
            return False, " <- ".join(causes)

    return judge


def main():
    spec, base, cases_path = sys.argv[1:4]
    with open(cases_path) as handle:
        cases = json.load(handle)
    judge = oracle(spec)
    results = []
    for case in cases:
        status, content_type, body = send(base, case)
        result = {"status": status, "contentType": content_type, "body": body[:2000]}
        if judge is not None:
            valid, error = judge(case)
            result["oracleValid"] = valid
            result["oracleError"] = error
        results.append(result)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
