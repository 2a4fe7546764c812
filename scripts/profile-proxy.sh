#!/usr/bin/env bash
# Instructions per proxied exchange, counted by callgrind: repeatable on a loaded machine, where wall-clock figures
# are not. Orrery (one event loop, the journal on, no stubs) forwards every request to bench/reference's C server;
# h2load makes a fixed number of keep-alive HTTP/1.1 requests over 4 connections, and the instructions counted inside
# `event_base_loop` (start-up left out) are divided by the requests made.
#
#   ORRERY_BIN=path [ORRERY_PREVIOUS_BIN=path] [REQUESTS=12000] [CACHE_LL_BYTES=n] [SERVE_ARGS='...'] \
#       [BODY_FILE=path] scripts/profile-proxy.sh
#
# SERVE_ARGS are added to both daemons' `serve` (for example `--journal-entries 100`, to see what the journal's
# size costs). BODY_FILE is the upstream's answer body (default: the 11 bytes `{"ok":true}`), to see what the
# journal's look at a larger body costs.
# CACHE_LL_BYTES turns on callgrind's cache simulation with a last-level cache of that many bytes (a power of two,
# such as 4194304) and prints its data misses per exchange as well: what the journal's size costs shows there, as
# memory long out of the caches, where the instruction count does not see it.
#
# REQUESTS is above the journal's 10,000 entries, so that most exchanges also push the oldest entry out, as they do
# under load. Each binary is copied and stripped of its debug information first (valgrind 3.19 cannot read the
# DWARF 5 Swift writes). The callgrind output is kept (the path is printed) for `callgrind_annotate --inclusive=yes`.
# Everything listens on 127.0.0.1 only and is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REQUESTS=${REQUESTS:-12000}
CACHE_LL_BYTES=${CACHE_LL_BYTES:-}
read -r -a SERVE_ARGS <<<"${SERVE_ARGS:-}"
HOST=127.0.0.1
die() { printf 'profile-proxy.sh: error: %s\n' "$*" >&2; exit 1; }
log() { printf '==> %s\n' "$*" >&2; }

[[ -n ${ORRERY_BIN:-} ]] || die "set ORRERY_BIN to a release binary (scripts/build-release.sh prints its path)"
for tool in valgrind callgrind_annotate h2load curl gcc pkg-config strip timeout; do
    command -v "$tool" >/dev/null || die "$tool not found (scripts/install-dependencies.sh --with-test-tools)"
done
(( REQUESTS >= 100 )) || die "REQUESTS must be at least 100"
CACHE_ARGS=()
if [[ -n $CACHE_LL_BYTES ]]; then
    [[ $CACHE_LL_BYTES =~ ^[0-9]+$ ]] && (( CACHE_LL_BYTES >= 65536 && (CACHE_LL_BYTES & (CACHE_LL_BYTES - 1)) == 0 )) \
        || die "CACHE_LL_BYTES must be a power of two of at least 65536, such as 4194304"
    CACHE_ARGS=(--cache-sim=yes "--LL=$CACHE_LL_BYTES,16,64")
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orrery-profile.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

gcc -O2 -o "$WORK/reference-server" "$ROOT/bench/reference/reference-server.c" \
    $(pkg-config --cflags --libs libevent libevent_pthreads) -lpthread
if [[ -n ${BODY_FILE:-} ]]; then
    cp "$BODY_FILE" "$WORK/body.json" || die "cannot read BODY_FILE $BODY_FILE"
else
    printf '%s' '{"ok":true}' >"$WORK/body.json"
fi
UPSTREAM_PORT=$(free_port)
"$WORK/reference-server" --host "$HOST" --port "$UPSTREAM_PORT" --threads 1 --body "$WORK/body.json" \
    --content-type application/json &
PIDS+=($!)
mkdir -p "$WORK/stubs" "$WORK/config"
cat >"$WORK/config/hosts.json" <<JSON
{"configurations": [{"canonical_host": "upstream.bench", "canonical_protocol": "http", "release_key": "PROD",
  "hosts": [{"key": "PROD", "host": "$HOST:$UPSTREAM_PORT", "protocol": "http"}]}]}
JSON

# Prints the instructions per proxied exchange of one binary.
profile() {
    local label=$1 binary=$2 port pid i
    cp "$binary" "$WORK/orrery-$label"
    strip --strip-debug "$WORK/orrery-$label"
    port=$(free_port)
    valgrind --tool=callgrind "${CACHE_ARGS[@]}" --toggle-collect=event_base_loop --callgrind-out-file="$WORK/callgrind.$label" \
        "$WORK/orrery-$label" serve --host "$HOST" --port "$port" --stubs "$WORK/stubs" --config "$WORK/config" \
        --threads 1 --log-level error "${SERVE_ARGS[@]}" >"$WORK/valgrind.$label.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    for (( i = 0; i < 240; i++ )); do
        curl -fsS -o /dev/null --max-time 2 "http://$HOST:$port/bench" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || die "$label: the daemon ended under valgrind (see $WORK/valgrind.$label.log)"
        sleep 0.5
    done
    (( i < 240 )) || die "$label: no answer within 2 minutes"
    timeout 900 h2load --h1 -n "$REQUESTS" -c 4 -m 1 "http://$HOST:$port/bench" >"$WORK/h2load.$label.txt" 2>&1 \
        || die "$label: h2load failed (see $WORK/h2load.$label.txt)"
    grep -q "$REQUESTS succeeded" "$WORK/h2load.$label.txt" \
        || die "$label: not every request succeeded (see $WORK/h2load.$label.txt)"
    kill -INT "$pid"
    wait "$pid" 2>/dev/null || true
    local totals total misses=""
    # Ir first; with the cache simulation, DLmr and DLmw (last-level data misses, reads and writes) last.
    totals=$(callgrind_annotate "$WORK/callgrind.$label" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done { gsub(",", ""); print; done = 1 }')
    total=$(awk '{ print $1 }' <<<"$totals")
    [[ -n $total ]] || die "$label: no totals in $WORK/callgrind.$label"
    if [[ -n $CACHE_LL_BYTES ]]; then
        misses=$(awk -v n="$REQUESTS" '{ gsub(/\([0-9.]+%\)/, ""); $0 = $0; printf ", %.1f last-level data misses (%.1f reads, %.1f writes)", ($8 + $9) / n, $8 / n, $9 / n }' <<<"$totals")
    fi
    # The readiness probe (one or more curl requests) is counted with the rest: a rounding error at this count.
    printf '%s: %d instructions per proxied exchange%s (%s in %d requests); %s\n' \
        "$label" $(( total / REQUESTS )) "$misses" "$total" "$REQUESTS" "$WORK/callgrind.$label"
}

log "callgrind, $REQUESTS requests per binary (a few minutes each)"
[[ -z ${ORRERY_PREVIOUS_BIN:-} ]] || profile previous "$ORRERY_PREVIOUS_BIN"
profile orrery "$ORRERY_BIN"
