"""Drives an Orrery port that speaks WireMock's admin API with the Python `wiremock` package's client, unchanged.

    python_client_check.py PORT...

Each port is checked in its own thread, all at once (the package's client reads one global base URL, so each
thread sets it under a lock around each call); each must see only its own mappings and requests. Prints OK.
"""

import sys
import threading
import urllib.error
import urllib.request

from wiremock.client import (
    GlobalSetting, GlobalSettings, HttpMethods, Mapping, MappingRequest, MappingResponse, Mappings, NearMisses,
    NearMissMatchPatternRequest, NearMissMatchRequest, Requests, Scenarios,
)
from wiremock.constants import Config

LOCK = threading.Lock()
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch(port, path, data=None):
    try:
        with OPENER.open(f"http://127.0.0.1:{port}{path}", data=data, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def call(port, function, *args):
    with LOCK:
        Config.base_url = f"http://127.0.0.1:{port}/__admin"
        return function(*args)


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def run(port, tag, failures):
    try:
        call(port, Mappings.delete_all_mappings)
        call(port, Requests.reset_request_journal)
        created = call(port, Mappings.create_mapping, Mapping(
            request=MappingRequest(method=HttpMethods.GET, url="/mine"),
            response=MappingResponse(status=200, body=tag), persistent=False))
        check(created.id, "create_mapping answers with the id")
        call(port, Mappings.create_mapping, Mapping(
            priority=1, request=MappingRequest(method=HttpMethods.POST, url_path="/orders"),
            response=MappingResponse(status=201, json_body={"session": tag})))
        check(fetch(port, "/mine") == (200, tag), f"{tag}: its own stub answers")
        status, body = fetch(port, "/orders", data=b"{}")
        check(status == 201 and tag in body, f"{tag}: jsonBody answers")
        status, body = fetch(port, "/elsewhere")
        check(status == 404 and "Request was not matched" in body, f"{tag}: a miss answers WireMock's text")

        everything = call(port, Mappings.retrieve_all_mappings)
        check(everything.meta.total == 2 and len(everything.mappings) == 2, f"{tag}: sees its own two mappings only")
        check(call(port, Mappings.retrieve_mapping, created.id).response.body == tag, f"{tag}: retrieve_mapping")
        received = call(port, Requests.get_all_received_requests)
        check(received.meta.total == 3, f"{tag}: sees its own three requests only")
        count = call(port, Requests.get_matching_request_count, NearMissMatchPatternRequest(url="/mine", method="GET"))
        check(count.count == 1, f"{tag}: get_matching_request_count")
        found = call(port, Requests.get_matching_requests, NearMissMatchPatternRequest(url="/mine", method="GET"))
        check(len(found.requests) == 1 and found.requests[0].url == "/mine", f"{tag}: get_matching_requests")
        unmatched = call(port, Requests.get_unmatched_requests)
        check(len(unmatched.requests) == 1, f"{tag}: get_unmatched_requests")
        misses = call(port, NearMisses.find_nearest_misses_by_request, NearMissMatchRequest(url="/mines", method="GET"))
        check(len(misses.near_misses) >= 1, f"{tag}: near misses of a request")
        call(port, NearMisses.find_nearest_misses_by_request_pattern, NearMissMatchPatternRequest(url="/min", method="GET"))
        call(port, Scenarios.reset_all_scenarios)
        call(port, GlobalSettings.update_global_settings, GlobalSetting(fixed_delay=0))

        call(port, Mappings.delete_mapping, created.id)
        check(fetch(port, "/mine")[0] == 404, f"{tag}: a deleted mapping no longer answers")
        call(port, Mappings.reset_mappings)
        check(call(port, Mappings.retrieve_all_mappings).meta.total == 0, f"{tag}: reset_mappings")
        call(port, Requests.reset_request_journal)
        check(call(port, Requests.get_all_received_requests).meta.total == 0, f"{tag}: reset_request_journal")
    except Exception as error:  # noqa: BLE001 (every failure is reported with its session)
        failures.append(f"{tag}: {error!r}")


def main():
    failures = []
    threads = [threading.Thread(target=run, args=(int(port), f"session-{index}", failures))
               for index, port in enumerate(sys.argv[1:], start=1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    if failures:
        sys.exit("\n".join(failures))
    print("OK")


if __name__ == "__main__":
    main()
