#!/usr/bin/env python3
"""What opening a WireMock-dialect session costs: 1,000 `POST /__admin/sessions {"wiremock": true}`, then as many
`DELETE /__admin/sessions/{id}`, on one keep-alive connection, against a release daemon. Prints Markdown lines.

    scripts/bench-wiremock-sessions.py [--orrery PATH] [--count 1000]

Reported per session: the mean and 99th percentile of the round trip the client sees, and the daemon's own CPU time
(user + system, read from /proc before and after), which is the daemon's work whatever the client's. Ordinary
sessions are measured the same way, for comparison. Everything listens on 127.0.0.1; the daemon stops on exit.
"""

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def measure(connection, pid, count, body):
    """Opens then ends `count` sessions; the round trips (seconds) and the daemon's CPU seconds of each half."""
    ids, opened, closed = [], [], []
    before = cpu_seconds(pid)
    for _ in range(count):
        start = time.perf_counter()
        connection.request("POST", "/__admin/sessions", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        opened.append(time.perf_counter() - start)
        if response.status != 201:
            sys.exit(f"bench-wiremock-sessions: {response.status} {answer[:200]!r}")
        ids.append(json.loads(answer)["id"])
    middle = cpu_seconds(pid)
    for session in ids:
        start = time.perf_counter()
        connection.request("DELETE", f"/__admin/sessions/{session}")
        connection.getresponse().read()
        closed.append(time.perf_counter() - start)
    after = cpu_seconds(pid)
    return opened, closed, middle - before, after - middle


def line(what, times, cpu, count):
    mean = statistics.mean(times) * 1e6
    p99 = sorted(times)[int(len(times) * 0.99) - 1] * 1e6
    return f"| {what} | {count} | {mean:.0f} µs | {p99:.0f} µs | {cpu / count * 1e6:.0f} µs |"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    release = os.path.join(HERE, "..", ".build", "release", "orrery")
    parser.add_argument("--orrery", default=release if os.path.exists(release) else os.path.join(HERE, "..", ".build", "debug", "orrery"))
    parser.add_argument("--count", type=int, default=1000)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="orrery-bench-wiremock-sessions-")
    os.makedirs(os.path.join(work, "stubs"))
    ready = os.path.join(work, "ready.json")
    daemon = subprocess.Popen(
        [options.orrery, "serve", "--port", "0", "--stubs", os.path.join(work, "stubs"), "--offline", "--threads", "1",
         "--watch-interval", "0", "--log-level", "error", "--ready-file", ready, "--exit-on-stdin-eof"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while not os.path.exists(ready) and time.time() < deadline and daemon.poll() is None:
            time.sleep(0.05)
        port = json.load(open(ready))["port"]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        # A warm-up round, so that neither kind pays for the first allocations.
        measure(connection, daemon.pid, 100, b'{"wiremock": true}')
        version = subprocess.run([options.orrery, "--version"], capture_output=True, text=True).stdout.strip()
        print(f"orrery {version}, 1 thread, {options.count} sessions opened then ended on one keep-alive connection")
        print()
        print("| session | count | mean round trip | p99 round trip | daemon CPU per session |")
        print("|---|---|---|---|---|")
        for what, body in [("WireMock (`{\"wiremock\": true}`)", b'{"wiremock": true}'), ("ordinary", b"{}")]:
            opened, closed, open_cpu, close_cpu = measure(connection, daemon.pid, options.count, body)
            print(line(f"open, {what}", opened, open_cpu, options.count))
            print(line(f"end, {what}", closed, close_cpu, options.count))
    finally:
        daemon.stdin.close()
        daemon.terminate()
        daemon.wait(timeout=20)


if __name__ == "__main__":
    main()
