#!/usr/bin/env bash
# One WireMock root served by WireMock itself and by Orrery (--wiremock-root), pinned: each server on CPU 0, wrk
# on CPU 1, one after the other. Two mappings: a static JSON answer, and the same answer made by a response
# template from the path, a query parameter and a header.
#
#   scripts/bench-wiremock.sh
#
# Environment (all optional): ORRERY_BIN (default: the release build), WIREMOCK_JAR (default: the jar of the
# Python package wiremock), WRK_CONNECTIONS (32), WRK_DURATION (5s), WRK_WARMUP (5s; the JVM compiles as it warms).
# Everything listens on 127.0.0.1; the servers are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

ORRERY_BIN=${ORRERY_BIN:-$(scripts/build-release.sh)}
WIREMOCK_JAR=${WIREMOCK_JAR:-$(python3 -c 'import glob, os, wiremock; print(sorted(glob.glob(os.path.join(os.path.dirname(wiremock.__file__), "server", "wiremock-standalone-*.jar")))[-1])')}
CONNECTIONS=${WRK_CONNECTIONS:-32}
DURATION=${WRK_DURATION:-5s}
WARMUP=${WRK_WARMUP:-5s}

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/root/mappings" "$work/stubs"
cat > "$work/root/mappings/bench.json" <<'EOF'
{"mappings": [
  {"request": {"method": "GET", "urlPath": "/static/7"},
   "response": {"status": 200, "headers": {"Content-Type": "application/json"},
     "jsonBody": {"id": "7", "name": "Ada Lovelace", "role": "admin", "agent": "wrk", "active": true}}},
  {"request": {"method": "GET", "urlPathPattern": "/templated/[0-9]+"},
   "response": {"status": 200, "headers": {"Content-Type": "application/json"},
     "body": "{\"id\":\"{{request.path.[1]}}\",\"name\":\"{{request.query.name}}\",\"role\":\"admin\",\"agent\":\"{{request.headers.User-Agent}}\",\"active\":true}",
     "transformers": ["response-template"]}}
]}
EOF

wait_for() { # url
    for _ in $(seq 300); do
        curl -s -o /dev/null --noproxy '*' "$1" && return 0
        sleep 0.1
    done
    echo "bench-wiremock: $1 never answered" >&2
    exit 1
}

measure() { # url -> requests per second
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$WARMUP" -H 'User-Agent: wrk' "$1" >/dev/null
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -H 'User-Agent: wrk' "$1" | awk '/Requests\/sec/ {print $2}'
}

rows=()
run_server() { # name port-file-or-log
    local name=$1 base=$2
    wait_for "$base/static/7"
    local static templated
    static=$(measure "$base/static/7")
    templated=$(measure "$base/templated/7?name=Ada%20Lovelace")
    rows+=("| $name | $static | $templated |")
}

# WireMock: its container threads on CPU 0, with response templates as WireMock 3 has them by default.
taskset -c 0 java -jar "$WIREMOCK_JAR" --bind-address 127.0.0.1 --port 0 --root-dir "$work/root" --disable-banner \
    --no-request-journal --local-response-templating > "$work/wiremock.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do grep -q '^port:' "$work/wiremock.log" && break; sleep 0.1; done
wiremock_port=$(awk '/^port:/ {print $2}' "$work/wiremock.log")
run_server "WireMock 2.35.1 (--no-request-journal)" "http://127.0.0.1:$wiremock_port"
kill "${pids[-1]}"

taskset -c 0 "$ORRERY_BIN" serve --port 0 --threads 1 --stubs "$work/stubs" --wiremock-root "$work/root" --offline \
    --log-level error --watch-interval 0 --journal-entries 0 --ready-file "$work/orrery.ready" > "$work/orrery.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do [ -s "$work/orrery.ready" ] && break; sleep 0.1; done
orrery_port=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['port'])" "$work/orrery.ready")
run_server "Orrery (--wiremock-root, 1 thread, no journal)" "http://127.0.0.1:$orrery_port"

echo "| server (pinned to CPU 0; wrk -c$CONNECTIONS on CPU 1, $DURATION) | static mapping, requests/s | templated mapping, requests/s |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
