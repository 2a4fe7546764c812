#!/usr/bin/env bash
# A spec-served answer with the request checked (serve --openapi, a 1 KB JSON body against its schema, a path
# and a query parameter) against the same answer from a stub file, pinned: the server on CPU 0, wrk on CPU 1, one
# thread, journal off. Reports requests per second and the server's CPU per request (from /proc), and the ratio.
#
#   scripts/bench-openapi.sh
#   scripts/bench-openapi.sh --instructions    # instructions per request instead, counted by callgrind
#
# With --instructions the server runs under valgrind's callgrind (a copy of the binary with its debug information
# stripped: valgrind cannot read the DWARF 5 Swift writes), its counters zeroed before and dumped after wrk
# (4 connections, 5 s) asks one kind of request, and the count is divided by the requests wrk made: repeatable on a loaded machine, where CPU
# time is not.
#
# Environment (all optional): ORRERY_BIN (default: the release build), WRK_CONNECTIONS (16), WRK_DURATION (10s),
# BENCH_ROUNDS (3: the servers take turns, the median is reported), KEEP_DUMPS (a folder to keep callgrind's dumps
# in, for callgrind_annotate). Everything listens on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

INSTRUCTIONS=false
[ "${1:-}" = "--instructions" ] && INSTRUCTIONS=true
ORRERY_BIN=${ORRERY_BIN:-$(scripts/build-release.sh)}
CONNECTIONS=${WRK_CONNECTIONS:-16}
DURATION=${WRK_DURATION:-10s}
ROUNDS=${BENCH_ROUNDS:-3}
SPEC=bench/openapi/orders.yaml

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${KEEP_DUMPS:-}" ]; then cp "$work"/callgrind.* "$KEEP_DUMPS"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The same 1 KB order for both; the stub answers what the spec's example says.
body=$(python3 -c '
import json
lines = [{"sku": "ABC-%04d" % i, "quantity": i + 1, "price": 12.5 + i, "gift": i % 2 == 0} for i in range(14)]
print(json.dumps({"currency": "EUR", "note": "leave at the door, please", "lines": lines}, separators=(",", ":")))')
echo "body: ${#body} bytes" >&2
mkdir -p "$work/stubs"
cat > "$work/stubs/orders.yaml" <<YAML
- request: { method: POST, path: "/stub/orders/c-42" }
  response:
    status: 201
    headers: { Content-Type: application/json }
    body: '{"id":"o-1","status":"placed","total":123.45}'
- request: { method: GET, path: "/stub/orders/c-42/o-1" }
  response:
    status: 200
    headers: { Content-Type: application/json }
    body: '{"id":"o-1","status":"placed","total":123.45}'
YAML
python3 - "$work/post.lua" "$body" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' % sys.argv[2])
PY

serve=(serve --port 0 --threads 1 --stubs "$work/stubs" --openapi "$SPEC" --offline --log-level error
    --watch-interval 0 --journal-entries 0 --ready-file "$work/orrery.ready")
if $INSTRUCTIONS; then
    cp "$ORRERY_BIN" "$work/orrery"
    strip --strip-debug "$work/orrery"
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%p" "$work/orrery" \
        "${serve[@]}" > "$work/orrery.log" 2>&1 &
else
    taskset -c 0 "$ORRERY_BIN" "${serve[@]}" > "$work/orrery.log" 2>&1 &
fi
pid=$!
pids+=($pid)
for _ in $(seq 1200); do [ -s "$work/orrery.ready" ] && break; sleep 0.1; done
port=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['port'])" "$work/orrery.ready")
base="http://127.0.0.1:$port"
spec_url="$base/api/orders/c-42?dryRun=false"
stub_url="$base/stub/orders/c-42"
for url in "$spec_url" "$stub_url"; do
    status=$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d "$body" "$url")
    [ "$status" = 201 ] || { echo "bench-openapi: $url answered $status" >&2; exit 1; }
done

if $INSTRUCTIONS; then
    count() { # label url [wrk script] -> "label: instructions per request"
        local script=(${3:+-s "$3"})
        wrk -t1 -c4 -d2s "${script[@]}" "$2" > /dev/null
        callgrind_control -z "$pid" > /dev/null
        local out
        out=$(wrk -t1 -c4 -d5s "${script[@]}" "$2")
        # The dump's label goes through a shell: letters and digits only.
        callgrind_control -d "${1//[^A-Za-z0-9]/_}" "$pid" > /dev/null
        local requests total
        requests=$(echo "$out" | awk '/requests in/ {print $1}')
        # The dump's own summary line: callgrind_annotate needs the binary's symbols, which the copy lacks.
        local dump
        dump=$(ls -t "$work"/callgrind.* | head -1)
        total=$(awk '/^summary:|^totals:/ {print $2; exit}' "$dump")
        if [ -z "$total" ] || [ -z "$requests" ] || [ "$requests" = 0 ]; then
            echo "bench-openapi: no count for '$1' (dump $dump, requests '${requests:-}')" >&2
            exit 1
        fi
        echo "| $1 | $requests | $((total / requests)) |"
    }
    echo "| request (1 thread, journal off, callgrind) | requests counted | instructions per request |"
    echo "|---|---|---|"
    count "GET, stub file" "$stub_url/o-1"
    count "GET, --openapi (path parameter with a pattern checked)" "$base/api/orders/c-42/o-1"
    count "POST, stub file" "$stub_url" "$work/post.lua"
    count "POST, --openapi (${#body}-byte JSON body checked)" "$spec_url" "$work/post.lua"
    exit 0
fi

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
measure() { # url [wrk script] -> "requests/s microseconds-of-CPU-per-request"
    local script=(${2:+-s "$2"})
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${script[@]}" "$1" > /dev/null
    local before after out requests
    before=$(ticks)
    out=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "${script[@]}" "$1")
    after=$(ticks)
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(python3 -c "print(round(($after - $before) / $hz * 1e6 / $requests, 2))")"
}

spec_runs=()
stub_runs=()
get_spec_runs=()
get_stub_runs=()
for _ in $(seq "$ROUNDS"); do
    stub_runs+=("$(measure "$stub_url" "$work/post.lua")")
    spec_runs+=("$(measure "$spec_url" "$work/post.lua")")
    get_stub_runs+=("$(measure "$stub_url/o-1")")
    get_spec_runs+=("$(measure "$base/api/orders/c-42/o-1")")
done
median() { printf '%s\n' "$@" | sort -k2 -n | sed -n "$((($# + 1) / 2))p"; }
row() { # label stub-runs... -- spec-runs...
    local label=$1
    shift
    local stubs=() specs=()
    while [ "$1" != "--" ]; do stubs+=("$1"); shift; done
    shift
    specs=("$@")
    read -r stub_rps stub_cpu <<< "$(median "${stubs[@]}")"
    read -r spec_rps spec_cpu <<< "$(median "${specs[@]}")"
    echo "| $label | $stub_rps / $stub_cpu | $spec_rps / $spec_cpu | $(python3 -c "print(round($spec_cpu / $stub_cpu, 2))")x |"
}
echo "| answer (pinned, 1 thread, journal off) | stub file: requests/s / CPU µs | --openapi: requests/s / CPU µs | CPU ratio |"
echo "|---|---|---|---|"
row "GET, no body (path parameter with a pattern checked)" "${get_stub_runs[@]}" -- "${get_spec_runs[@]}"
row "POST, ${#body}-byte JSON body checked" "${stub_runs[@]}" -- "${spec_runs[@]}"
