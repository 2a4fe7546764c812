#!/usr/bin/env bash
# What adding a stub over the admin API costs as a session's stubs grow: the median time of a POST /__admin/stubs
# among the first 100 adds and among the last 100 of 10,000, in the daemon's own session and in a session. The two
# should be about the same (an add inserts into the session's table; nothing is rebuilt). Prints Markdown lines.
#
#   scripts/bench-admin-add.sh
#
# Environment (all optional):
#   ORRERY_BIN    use this orrery binary instead of building one with scripts/build-release.sh
#   STUB_COUNT    stubs added per session (default 10000)
#
# One Python client adds the stubs on a keep-alive connection, each a distinct path (half exact paths, half path
# templates, so both tables grow). Everything listens on 127.0.0.1; the daemon is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
COUNT=${STUB_COUNT:-10000}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench-admin-add.sh: error: %s\n' "$*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 not found"

if [[ -n ${ORRERY_BIN:-} ]]; then
    BIN=$ORRERY_BIN
else
    log "building the release binary"
    BIN=$(scripts/build-release.sh)
fi
[[ -x $BIN ]] || die "no executable at $BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orrery-bench-add-XXXXXX")
DAEMON_PID=""
cleanup() {
    exec 3>&- || true
    if [[ -n $DAEMON_PID ]]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/stubs" "$WORK/config"
mkfifo "$WORK/lifeline"
"$BIN" serve --port 0 --ready-file "$WORK/ready.json" --exit-on-stdin-eof --ignore-env-state --no-proxy \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads 1 --watch-interval 0 --log-level error \
    < "$WORK/lifeline" > "$WORK/stdout.log" 2> "$WORK/stderr.log" &
DAEMON_PID=$!
exec 3> "$WORK/lifeline"
for _ in $(seq 1 300); do [[ -s $WORK/ready.json ]] && break; sleep 0.1; done
[[ -s $WORK/ready.json ]] || { cat "$WORK/stderr.log" >&2; die "the daemon wrote no ready file"; }
URL=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["url"])' "$WORK/ready.json")
log "orrery $("$BIN" --version) at $URL, adding $COUNT stubs per session"

python3 - "$URL" "$COUNT" <<'PY'
import http.client, json, statistics, sys, time
from urllib.parse import urlsplit
url, count = urlsplit(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)

def call(method, path, body=None, session=None):
    headers = {"Content-Type": "application/json"}
    if session:
        headers["X-Orrery-Session"] = session
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    return answer.status, data

def add_all(session):
    """Adds `count` stubs; returns each add's seconds."""
    times = []
    for number in range(count):
        path = f"/items/{number}" if number % 2 == 0 else f"/things/{number}/{{id}}"
        body = json.dumps({"request": {"method": "GET", "path": path}, "response": {"body": str(number)}}).encode()
        began = time.perf_counter()
        status, data = call("POST", "/__admin/stubs", body, session)
        times.append(time.perf_counter() - began)
        if status != 201:
            raise SystemExit(f"POST /__admin/stubs: {status} {data[:200]!r}")
    return times

# Warm-up in a session of its own, ended before measuring: the first requests of a fresh daemon are slower.
status, data = call("POST", "/__admin/sessions", b"{}")
warm = json.loads(data)["id"]
for number in range(500):
    call("POST", "/__admin/stubs", json.dumps({"request": {"path": f"/warm/{number}"}, "response": {}}).encode(), warm)
call("DELETE", "/__admin/sessions/" + warm)

status, data = call("POST", "/__admin/sessions", b"{}")
session = json.loads(data)["id"]
print(f"| where | median add, stubs 1-100 | median add, stubs {count - 99}-{count} | ratio |")
print("|---|---|---|---|")
for name, target in [("daemon's own session", None), ("a session", session)]:
    times = add_all(target)
    first, last = statistics.median(times[:100]) * 1e6, statistics.median(times[-100:]) * 1e6
    print(f"| {name} | {first:.0f} µs | {last:.0f} µs | {last / first:.2f} |")
PY
