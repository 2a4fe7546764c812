#!/usr/bin/env bash
# Instructions per request, counted by callgrind, for h2c (prior knowledge) and HTTP/1.1 answers of the same stub
# (the 2-byte JSON body of scripts/bench-http2.sh), one event loop, the journal off. A count does not depend on what
# else the machine runs, so the two rows compare on a busy machine too.
#
#   scripts/http2-cost.sh
#
# Environment (optional): ORRERY_BIN (default: the release build), REQUESTS (20000 per row), STREAMS (h2load -m,
# 16). Needs valgrind and h2load; the release binary is copied with its debug information stripped (valgrind
# cannot read Swift's DWARF 5). Everything listens on 127.0.0.1; the server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

ORRERY_BIN=${ORRERY_BIN:-$(scripts/build-release.sh)}
REQUESTS=${REQUESTS:-20000}
STREAMS=${STREAMS:-16}

# shellcheck source=scripts/lib/callgrind-work.sh
source scripts/lib/callgrind-work.sh
mkdir -p "$work/stubs"
cat > "$work/stubs/bench.yaml" <<'YAML'
- request: { method: GET, path: / }
  response: { headers: { Content-Type: application/json }, body: "{}" }
YAML

valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$work/orrery" serve --port 0 --threads 1 \
    --stubs "$work/stubs" --config "$work/none" --offline --log-level error --watch-interval 0 \
    --journal-entries 0 --ready-file "$work/orrery.ready" > "$work/orrery.log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$work/orrery.ready" ] && break; sleep 0.1; done
port=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['port'])" "$work/orrery.ready")

# count LABEL H2LOAD-ARGS...: a warm-up, then callgrind's counters zeroed, REQUESTS requests, and a dump.
count() {
    local label=$1
    shift
    h2load -n 200 "$@" "http://127.0.0.1:$port/" > /dev/null
    callgrind_control -z "$pid" > /dev/null
    local output done
    output=$(h2load -n "$REQUESTS" "$@" "http://127.0.0.1:$port/")
    done=$(echo "$output" | awk '/^requests:/ { print $8 }')
    [ "$done" = "$REQUESTS" ] || { echo "$label: $done of $REQUESTS requests succeeded" >&2; exit 1; }
    callgrind_control -d "$label" "$pid" > /dev/null
    local dump total
    dump=$(ls -t "$work"/callgrind.out.* | head -1)
    total=$(awk '/^summary:|^totals:/ {print $2; exit}' "$dump")
    echo "$((total / REQUESTS))"
}

h2=$(count h2c -c 4 -m "$STREAMS")
h1=$(count h1 --h1 -c 4)
echo "| protocol (h2load -c4, $REQUESTS requests) | instructions per request |"
echo "|---|---:|"
echo "| h2c, $STREAMS streams a connection | $h2 |"
echo "| HTTP/1.1, one request at a time | $h1 |"
