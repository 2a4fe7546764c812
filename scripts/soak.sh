#!/usr/bin/env bash
# Soak test: a release daemon on 127.0.0.1 under full load for SECONDS seconds (default 600), its resident memory
# (VmRSS) and open file descriptors sampled every few seconds into a CSV, and a summary at the end. Not part of CI.
#
#   scripts/soak.sh            # ten minutes
#   scripts/soak.sh 60         # one minute
#
# The daemon serves a mix of stubs: a static JSON answer, a templated one (path parameter, query, header), a
# templated POST that reads its JSON body, a 4 KB text body that goes out gzip-compressed, a regex stub, and a
# route no stub answers, proxied to a second orrery daemon as its upstream. Two wrk processes drive it at once,
# each with a Lua script that walks its paths in turn; the daemon keeps its default journal (10,000 entries).
# Meanwhile a third client fetches, one after the other, streamed answers from a streaming upstream
# (Tests/Fixtures/upstream.py): 5 s as fast as loopback carries them, then 3 s read at 1 MB/s and dropped. A
# recording is on throughout (--record): proxied answers are written as fixtures, streams over
# --record-body-limit are relayed and not recorded. RSS must stay flat: no answer is ever held whole.
#
# Environment (all optional):
#   ORRERY_BIN         use this orrery binary instead of building one with scripts/build-release.sh
#   SOAK_INTERVAL      seconds between samples (default 5)
#   SOAK_IDLE          seconds of sampling after the load, the daemons idle (default 75)
#   SOAK_CONNECTIONS   connections of each wrk process (default 32)
#   SOAK_THREADS       the daemon's --threads (default: its own default, one per core)
#   SOAK_OUT           folder for samples.csv, the wrk outputs and the daemons' logs (default .build/soak)
#   SOAK_STREAMS       0 leaves out the streaming upstream (default 1)
#   SOAK_RECORD        0 leaves the recording off (default 1)
#
# Everything listens on 127.0.0.1 only; both daemons and both wrk processes are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${1:-600}
INTERVAL=${SOAK_INTERVAL:-5}
IDLE=${SOAK_IDLE:-75}
CONNECTIONS=${SOAK_CONNECTIONS:-32}
OUT=${SOAK_OUT:-.build/soak}
HOST=127.0.0.1

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'soak.sh: error: %s\n' "$*" >&2; exit 1; }
command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
command -v curl >/dev/null || die "curl is not installed"
STREAMS=${SOAK_STREAMS:-1}
RECORD=${SOAK_RECORD:-1}

ORRERY=${ORRERY_BIN:-}
if [[ -z $ORRERY ]]; then
    log "building the release binary"
    ORRERY=$(scripts/build-release.sh)
fi
[[ -x $ORRERY ]] || die "no orrery binary at $ORRERY"

rm -rf "$OUT"
mkdir -p "$OUT/stubs/bodies" "$OUT/config" "$OUT/upstream-stubs"
PIDS=()
cleanup() {
    local status=$? pid
    set +e
    for pid in ${PIDS[@]+"${PIDS[@]}"}; do kill -TERM "$pid" 2>/dev/null; done
    for pid in ${PIDS[@]+"${PIDS[@]}"}; do wait "$pid" 2>/dev/null; done
    exit "$status"
}
trap cleanup EXIT INT TERM

# start NAME COMMAND...: starts a daemon with --port 0 and --ready-file, and prints its port once it answers.
start() {
    local name=$1
    shift
    "$@" --host "$HOST" --port 0 --ready-file "$OUT/$name.ready" --log-level warning >"$OUT/$name.log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    local deadline=$((SECONDS + 30))
    until [[ -s $OUT/$name.ready ]]; do
        kill -0 "$pid" 2>/dev/null || { cat "$OUT/$name.log" >&2; die "$name exited during start-up"; }
        ((SECONDS < deadline)) || die "$name was not ready within 30 s"
        sleep 0.1
    done
    # The ready file is JSON: {"url": ..., "port": N, "pid": ..., "version": ...}.
    echo "$pid $(grep -oE '"port" *: *[0-9]+' "$OUT/$name.ready" | grep -oE '[0-9]+$')"
}

# The upstream: another orrery, answering what the soaked daemon proxies.
cat >"$OUT/upstream-stubs/items.yaml" <<'YAML'
- request: { method: GET, pathPattern: "^/upstream/items/[0-9]+$" }
  response: { json: { id: 1, name: "from the upstream", tags: [a, b, c] } }
YAML
read -r UPSTREAM_PID UPSTREAM_PORT < <(start upstream "$ORRERY" serve --stubs "$OUT/upstream-stubs" \
    --config "$OUT/upstream-stubs" --no-proxy --threads 1 --journal-entries 0)

# The streaming upstream: Python's, which streams as long as asked.
STREAM_PORT=1
RECORD_OPTION=()
if ((STREAMS)); then
    python3 Tests/Fixtures/upstream.py --name stream >"$OUT/stream-upstream.log" 2>&1 &
    STREAM_PID=$!
    PIDS+=("$STREAM_PID")
    deadline=$((SECONDS + 15))
    until grep -q '^PORT ' "$OUT/stream-upstream.log" 2>/dev/null; do
        ((SECONDS < deadline)) || die "the streaming upstream did not start"
        sleep 0.1
    done
    STREAM_PORT=$(awk '/^PORT / { print $2; exit }' "$OUT/stream-upstream.log")
fi
((RECORD == 0)) || RECORD_OPTION=(--record "$OUT/recording")

cat >"$OUT/config/hosts.json" <<JSON
{"configurations": [{"canonical_host": "upstream.soak", "canonical_protocol": "http", "release_key": "PROD", "default": true,
  "hosts": [{"key": "PROD", "host": "$HOST:$UPSTREAM_PORT", "protocol": "http"}]},
 {"canonical_host": "stream.soak", "canonical_protocol": "http", "release_key": "PROD",
  "hosts": [{"key": "PROD", "host": "$HOST:$STREAM_PORT", "protocol": "http"}]}]}
JSON
awk 'BEGIN { for (i = 0; i < 100; i++) printf "line %03d: the quick brown fox jumps over the lazy dog, again and again.\n", i }' \
    >"$OUT/stubs/bodies/large.txt"
cat >"$OUT/stubs/soak.yaml" <<'YAML'
- name: static
  request: { method: GET, path: /static }
  response: { json: { ok: true, items: [1, 2, 3] } }
- name: templated
  request: { method: GET, path: "/users/{id}" }
  response:
    template: true
    headers: { X-User: "{{params.id}}" }
    json: { id: "{{params.id}}", page: "{{request.query.page}}", agent: "{{request.headers.user-agent}}", at: "{{now}}" }
- name: templated-post
  request: { method: POST, path: "/users/{id}/orders", headers: { Content-Type: { contains: json } } }
  response:
    status: 201
    template: true
    headers: { Location: "/users/{{params.id}}/orders/{{uuid}}" }
    json: { user: "{{params.id}}", sku: "{{request.json.items.0.sku}}", id: "{{uuid}}" }
- name: gzip
  request: { method: GET, path: /large }
  response: { headers: { Content-Type: text/plain }, bodyFile: bodies/large.txt }
- name: regex
  request: { method: GET, urlPattern: "^/search/[a-z]+\\?q=[0-9]+(&page=[0-9]+)?$" }
  response: { json: { results: [] } }
YAML
THREAD_OPTION=()
[[ -z ${SOAK_THREADS:-} ]] || THREAD_OPTION=(--threads "$SOAK_THREADS")
read -r ORRERY_PID PORT < <(start orrery "$ORRERY" serve --stubs "$OUT/stubs" --config "$OUT/config" \
    ${THREAD_OPTION[@]+"${THREAD_OPTION[@]}"} ${RECORD_OPTION[@]+"${RECORD_OPTION[@]}"})
log "orrery (pid $ORRERY_PID) on $HOST:$PORT, its upstream (pid $UPSTREAM_PID) on $HOST:$UPSTREAM_PORT"

# Every path answers as it should before the load starts.
check() {
    local expected=$1
    shift
    local status
    status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@")
    [[ $status == "$expected" ]] || die "$* answered $status, not $expected"
}
check 200 "http://$HOST:$PORT/static"
check 200 "http://$HOST:$PORT/users/7?page=2"
check 201 -X POST -H 'Content-Type: application/json' -d '{"items":[{"sku":"A-1"}]}' "http://$HOST:$PORT/users/7/orders"
check 200 -H 'Accept-Encoding: gzip' "http://$HOST:$PORT/large"
check 200 "http://$HOST:$PORT/search/abc?q=12"
check 200 "http://$HOST:$PORT/upstream/items/3"
((STREAMS == 0)) || check 200 -H 'Host: stream.soak' "http://$HOST:$PORT/drip?ms=10&count=3"

cat >"$OUT/reads.lua" <<'LUA'
-- GET paths in turn: static, templated, gzip, regex and proxied.
local paths = {
    { "/static", {} },
    { "/users/42?page=3", { ["User-Agent"] = "soak" } },
    { "/large", { ["Accept-Encoding"] = "gzip" } },
    { "/search/orrery?q=7&page=2", {} },
    { "/upstream/items/9", {} },
}
local n = 0
request = function()
    n = n + 1
    local path = paths[n % #paths + 1]
    return wrk.format("GET", path[1], path[2])
end
LUA
cat >"$OUT/writes.lua" <<'LUA'
-- Templated POSTs that read their JSON body, each with another user and SKU, and a miss now and then.
local n = 0
request = function()
    n = n + 1
    if n % 20 == 0 then return wrk.format("GET", "/nothing/here/" .. n) end
    local body = '{"items":[{"sku":"SKU-' .. n .. '","qty":' .. (n % 5) .. '}]}'
    return wrk.format("POST", "/users/" .. (n % 1000) .. "/orders", { ["Content-Type"] = "application/json" }, body)
end
LUA

# sample ELAPSED: one CSV row for both daemons.
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
threads() { awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
CSV=$OUT/samples.csv
echo "seconds,rss_kb,fds,threads,upstream_rss_kb,upstream_fds" >"$CSV"
sample() {
    echo "$1,$(rss "$ORRERY_PID"),$(fds "$ORRERY_PID"),$(threads "$ORRERY_PID"),$(rss "$UPSTREAM_PID"),$(fds "$UPSTREAM_PID")" >>"$CSV"
}

log "full load for $DURATION s, sampling every $INTERVAL s into $CSV"
sample 0
started=$SECONDS
timeout $((DURATION + 60)) wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$OUT/reads.lua" \
    "http://$HOST:$PORT" >"$OUT/reads.wrk" 2>&1 &
READS=$!
timeout $((DURATION + 60)) wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$OUT/writes.lua" \
    "http://$HOST:$PORT" >"$OUT/writes.wrk" 2>&1 &
WRITES=$!
PIDS+=("$READS" "$WRITES")
if ((STREAMS)); then
    # One stream after another until the load ends: fast, then slow and abandoned. Bytes per stream in streams.txt.
    (
        end=$((SECONDS + DURATION))
        while ((SECONDS < end)); do
            curl -s -o /dev/null -w 'fast %{size_download}\n' --max-time 20 -H 'Host: stream.soak' \
                "http://$HOST:$PORT/stream?seconds=5" || true
            curl -s -o /dev/null -w 'slow %{size_download}\n' --max-time 3 --limit-rate 1M -H 'Host: stream.soak' \
                "http://$HOST:$PORT/stream?seconds=10&length=1" || true
        done
    ) >"$OUT/streams.txt" 2>&1 &
    PIDS+=("$!")
fi
while kill -0 "$READS" 2>/dev/null || kill -0 "$WRITES" 2>/dev/null; do
    sleep "$INTERVAL"
    kill -0 "$ORRERY_PID" 2>/dev/null || die "orrery exited under load; see $OUT/orrery.log"
    sample $((SECONDS - started))
done
wait "$READS" || die "wrk (reads) failed; see $OUT/reads.wrk"
wait "$WRITES" || die "wrk (writes) failed; see $OUT/writes.wrk"
# Idle afterwards, past the upstream's idle timeout (60 s), so that the connections the proxy keeps alive to it
# close and the descriptors are seen coming back.
idle_until=$((SECONDS + IDLE))
while ((SECONDS < idle_until)); do
    sleep "$INTERVAL"
    sample "$((SECONDS - started)) (idle)"
done
# After the load: the daemon still answers, and lets go of the connections.
check 200 "http://$HOST:$PORT/static"

# requests, socket errors and non-2xx/3xx answers of one wrk output.
wrk_numbers() {
    awk '/ requests in / { requests = $1 }
         /Socket errors:/ { gsub(",", ""); errors = $4 + $6 + $8 + $10 }
         /Non-2xx or 3xx responses:/ { non2xx = $5 }
         END { printf "%d %d %d\n", requests, errors, non2xx }' "$1"
}
read -r reads read_errors read_non2xx < <(wrk_numbers "$OUT/reads.wrk")
read -r writes write_errors write_non2xx < <(wrk_numbers "$OUT/writes.wrk")
{
    echo "soak: $DURATION s, orrery $("$ORRERY" --version 2>/dev/null || echo '?'), $(nproc) CPUs, samples in $CSV"
    awk -F, 'NR == 2 { first_rss = $2; first_fds = $3 }
         NR > 1 { if ($2 > peak_rss) peak_rss = $2; if ($3 > peak_fds) peak_fds = $3; last_rss = $2; last_fds = $3; n++ }
         NR > 1 && $1 !~ /idle/ { load_rss = $2; load_fds = $3 }
         END {
             printf "RSS (MB): start %.1f, peak %.1f, end of load %.1f, after the idle time %.1f\n", first_rss / 1024, peak_rss / 1024, load_rss / 1024, last_rss / 1024
             printf "open fds: start %d, peak %d, end of load %d, after the idle time %d (%d samples)\n", first_fds, peak_fds, load_fds, last_fds, n
         }' "$CSV"
    echo "requests: $reads GET (static, templated, gzip, regex, proxied) + $writes POST/miss = $((reads + writes))"
    echo "socket errors: $((read_errors + write_errors)); non-2xx/3xx: $read_non2xx GET, $write_non2xx POST/miss (every 20th is a 404 miss by design)"
    if ((RECORD)); then
        echo "recorded fixtures: $(find "$OUT/recording" -name '*.yaml' 2>/dev/null | wc -l); answers not recorded (over --record-body-limit): $(grep -c 'is over --record-body-limit' "$OUT/orrery.log" || true)"
        # The recorder's write queue is bounded: what it could not take is counted in the log once the queue drains.
        echo "exchanges not recorded (write queue full): $(awk '/recording caught up: / { for (i = 1; i < NF; i++) if ($i == "up:") n += $(i + 1) } END { print n + 0 }' "$OUT/orrery.log")"
    fi
    if ((STREAMS)); then
        awk '$1 == "fast" { fast++; bytes += $2 } $1 == "slow" { slow++; bytes += $2 }
             END { printf "streams: %d fast (5 s each) and %d slow, %.1f GB relayed in all\n", fast, slow, bytes / 1e9 }' "$OUT/streams.txt"
    fi
} | tee "$OUT/summary.txt"
