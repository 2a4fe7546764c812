#!/usr/bin/env bash
# What sessions cost on a release daemon: how many sessions a test run can open and end per second over the admin
# API, and whether 100 open sessions slow down serving on one of them. Prints Markdown lines.
#
#   scripts/bench-sessions.sh
#
# Environment (all optional):
#   ORRERY_BIN         use this orrery binary instead of building one with scripts/build-release.sh
#   SESSION_CYCLES     sessions opened and ended per measurement (default 2000)
#   SESSION_CLIENTS    clients opening and ending sessions at once in the second measurement (default 4)
#   BENCH_THREADS      the daemon's --threads (default 1, as in scripts/bench.sh)
#   WRK_CONNECTIONS    wrk -c (default 32)
#   WRK_DURATION       wrk -d of each measured run (default 5s)
#   BENCH_ROUNDS       wrk runs per case, the cases taking turns; the median is reported (default 3)
#
# Sessions are timed by Python clients on keep-alive connections (POST /__admin/sessions, then DELETE
# /__admin/sessions/{id}), each client a process with a connection of its own. Serving is timed by wrk on a small JSON stub from
# the stubs folder, which every session sees: on the main port with no session open, on a session's port with that
# session alone, and on a session's port with 99 more open, each holding a stub of its own.
# With taskset and two cores or more, the daemon runs on CPU 0 and the clients on CPU 1, so that neither takes the
# other's time. Everything listens on 127.0.0.1; the daemon is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

CYCLES=${SESSION_CYCLES:-2000}
CLIENTS=${SESSION_CLIENTS:-4}
THREADS=${BENCH_THREADS:-1}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-32}
WRK_DURATION=${WRK_DURATION:-5s}
ROUNDS=${BENCH_ROUNDS:-3}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench-sessions.sh: error: %s\n' "$*" >&2; exit 1; }
for tool in wrk python3 curl; do command -v "$tool" >/dev/null || die "$tool not found (scripts/bench.sh installs wrk)"; done

if [[ -n ${ORRERY_BIN:-} ]]; then
    BIN=$ORRERY_BIN
else
    log "building the release binary"
    BIN=$(scripts/build-release.sh)
fi
[[ -x $BIN ]] || die "no executable at $BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orrery-bench-sessions-XXXXXX")
DAEMON_PID=""
cleanup() {
    # Closing the daemon's input (the lifeline) stops it too; SIGTERM makes sure.
    exec 3>&- || true
    if [[ -n $DAEMON_PID ]]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/stubs" "$WORK/config"
cat > "$WORK/stubs/small.yaml" <<'EOF'
- request: { method: GET, path: /api/v1/users/1 }
  response: { json: { id: 1, name: Ada Lovelace, email: ada@example.com, roles: [admin, author] } }
EOF

# Started as the test kit starts it: port 0, a ready file, its input a pipe this script holds.
DAEMON_CPU=() CLIENT_CPU=()
if command -v taskset >/dev/null && (( $(nproc) >= 2 )); then DAEMON_CPU=(taskset -c 0) CLIENT_CPU=(taskset -c 1); fi

mkfifo "$WORK/lifeline"
"${DAEMON_CPU[@]}" "$BIN" serve --port 0 --ready-file "$WORK/ready.json" --exit-on-stdin-eof --ignore-env-state --no-proxy \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads "$THREADS" --watch-interval 0 --log-level error \
    < "$WORK/lifeline" > "$WORK/stdout.log" 2> "$WORK/stderr.log" &
DAEMON_PID=$!
exec 3> "$WORK/lifeline"
for _ in $(seq 1 300); do [[ -s $WORK/ready.json ]] && break; sleep 0.1; done
[[ -s $WORK/ready.json ]] || { cat "$WORK/stderr.log" >&2; die "the daemon wrote no ready file"; }
URL=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["url"])' "$WORK/ready.json")
VERSION=$("$BIN" --version)
log "orrery $VERSION at $URL, $THREADS thread(s)"

# ------------------------------------------------------------ sessions ------

# Opens and ends $2 sessions on each of $3 connections at once; prints "rate p50_ms p99_ms" (cycles per second,
# and the open + end time of one cycle).
session_cycles() {
    "${CLIENT_CPU[@]}" python3 - "$1" "$2" "$3" <<'PY'
import http.client, json, multiprocessing, sys, time
from urllib.parse import urlsplit
url, cycles, clients = urlsplit(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def run(count):
    """Opens and ends `count` sessions on one keep-alive connection; returns each cycle's seconds."""
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    times = []
    for _ in range(count):
        began = time.perf_counter()
        connection.request("POST", "/__admin/sessions", body=b"{}", headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        body = answer.read()
        if answer.status != 201:
            raise SystemExit(f"POST /__admin/sessions: {answer.status} {body[:200]!r}")
        connection.request("DELETE", "/__admin/sessions/" + json.loads(body)["id"])
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise SystemExit(f"DELETE /__admin/sessions: {answer.status}")
        times.append(time.perf_counter() - began)
    return times

if __name__ == "__main__":
    run(50)  # warm-up
    # Processes, not threads: the clients must not queue on Python's interpreter lock instead of on the daemon.
    with multiprocessing.Pool(clients) as pool:
        pool.map(run, [1] * clients)  # the workers are up before the clock starts
        began = time.perf_counter()
        times = sorted(t for part in pool.map(run, [cycles // clients] * clients) for t in part)
        elapsed = time.perf_counter() - began
    print(f"{len(times) / elapsed:.0f} {times[len(times) // 2] * 1000:.2f} {times[int(len(times) * 0.99)] * 1000:.2f}")
PY
}

# The daemon's utime + stime, in clock ticks (fields 14 and 15 of /proc/PID/stat, after the command name).
cpu_ticks() { local stat; stat=$(<"/proc/$DAEMON_PID/stat"); local -a f; read -ra f <<<"${stat##*) }"; echo $(( f[11] + f[12] )); }
log "opening and ending $CYCLES sessions, one client"
BEFORE=$(cpu_ticks)
ONE=$(session_cycles "$URL" "$CYCLES" 1)
AFTER=$(cpu_ticks)
# The warm-up's 50 cycles and the one per worker are counted with the measured ones.
CYCLE_CPU_US=$(awk -v ticks="$(( AFTER - BEFORE ))" -v hz="$(getconf CLK_TCK)" -v cycles="$CYCLES" \
    'BEGIN { printf "%.0f", ticks / hz * 1e6 / (cycles + 51) }')
read -r ONE_RATE ONE_P50 ONE_P99 <<< "$ONE"
log "opening and ending $CYCLES sessions, $CLIENTS clients at once"
MANY=$(session_cycles "$URL" "$CYCLES" "$CLIENTS")
read -r MANY_RATE MANY_P50 MANY_P99 <<< "$MANY"
LEFT=$(curl -s "$URL/__admin/sessions" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])')
[[ $LEFT == 0 ]] || die "$LEFT sessions are still open after the cycles"

# ------------------------------------------------------------- serving ------

open_session() {
    curl -s -X POST "$URL/__admin/sessions" -d '{}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])'
}

# wrk against $1; prints "requests_per_second p50 p99" (latencies as wrk writes them).
measure() {
    "${CLIENT_CPU[@]}" wrk -t1 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency "$1/api/v1/users/1" | awk '
        /Requests\/sec/ { rps = $2 }
        $1 == "50%" { p50 = $2 }
        $1 == "99%" { p99 = $2 }
        END { printf "%.0f %s %s\n", rps, p50, p99 }'
}

# The median of the rounds, by requests per second, followed by the lowest and the highest.
median() { sort -n | awk '{ line[NR] = $0; split($0, f, " "); rps[NR] = f[1] } END { print line[int((NR + 1) / 2)], rps[1], rps[NR] }'; }

TARGET=$(open_session)
log "serving: main port, one session, then one of 100 sessions; $ROUNDS rounds of $WRK_DURATION"
wrk -t1 -c"$WRK_CONNECTIONS" -d2s "$TARGET/api/v1/users/1" > /dev/null  # warm-up
MAIN_RUNS=() ONE_RUNS=() HUNDRED_RUNS=()
OTHERS=()
for round in $(seq 1 "$ROUNDS"); do
    # The other sessions are ended between rounds, so each round measures one alone, then 100.
    for id in "${OTHERS[@]}"; do curl -s -o /dev/null -X DELETE "$URL/__admin/sessions/$id"; done
    OTHERS=()
    MAIN_RUNS+=("$(measure "$URL")")
    ONE_RUNS+=("$(measure "$TARGET")")
    for i in $(seq 1 99); do
        answer=$(curl -s -X POST "$URL/__admin/sessions" -d "{\"name\": \"other-$i\"}")
        id=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$answer")
        OTHERS+=("$id")
        curl -s -o /dev/null -X POST "$URL/__admin/stubs" -H "X-Orrery-Session: $id" \
            -d "{\"request\": {\"method\": \"GET\", \"path\": \"/other/$i\"}, \"response\": {\"json\": {\"n\": $i}}}"
    done
    OPEN=$(curl -s "$URL/__admin/sessions" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])')
    [[ $OPEN == 100 ]] || die "expected 100 sessions open, found $OPEN"
    HUNDRED_RUNS+=("$(measure "$TARGET")")
    log "round $round: main ${MAIN_RUNS[-1]%% *}, one session ${ONE_RUNS[-1]%% *}, 1 of 100 ${HUNDRED_RUNS[-1]%% *} req/s"
done
read -r MAIN_RPS MAIN_P50 MAIN_P99 MAIN_MIN MAIN_MAX <<< "$(printf '%s\n' "${MAIN_RUNS[@]}" | median)"
read -r ONE_RPS ONE_RP50 ONE_RP99 ONE_MIN ONE_MAX <<< "$(printf '%s\n' "${ONE_RUNS[@]}" | median)"
read -r HUNDRED_RPS HUNDRED_P50 HUNDRED_P99 HUNDRED_MIN HUNDRED_MAX <<< "$(printf '%s\n' "${HUNDRED_RUNS[@]}" | median)"
RSS=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$DAEMON_PID/status")

ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$1" "$2"; }

cat <<EOF
### Sessions

orrery $VERSION, release build, \`--threads $THREADS\`, $(nproc) cores$([[ ${#DAEMON_CPU[@]} -gt 0 ]] && echo ", daemon on CPU 0 and clients on CPU 1"); $(date -u +%Y-%m-%d).

| measure | result |
|---|---|
| sessions opened and ended per second, 1 client (\`POST\` + \`DELETE /__admin/sessions\`) | **$ONE_RATE/s** (one cycle: p50 $ONE_P50 ms, p99 $ONE_P99 ms) |
| the same, $CLIENTS clients at once | **$MANY_RATE/s** (one cycle: p50 $MANY_P50 ms, p99 $MANY_P99 ms) |
| the daemon's CPU for one session opened and ended (one client) | **$CYCLE_CPU_US µs** |

| wrk -c$WRK_CONNECTIONS on a small JSON stub, median of $ROUNDS × $WRK_DURATION | requests/s (range) | p50 | p99 | vs one session |
|---|---|---|---|---|
| main port, no session open | $MAIN_RPS ($MAIN_MIN–$MAIN_MAX) | $MAIN_P50 | $MAIN_P99 | $(ratio "$MAIN_RPS" "$ONE_RPS") |
| a session's port, that session alone | $ONE_RPS ($ONE_MIN–$ONE_MAX) | $ONE_RP50 | $ONE_RP99 | 1.00 |
| a session's port, 100 sessions open (each with a stub) | $HUNDRED_RPS ($HUNDRED_MIN–$HUNDRED_MAX) | $HUNDRED_P50 | $HUNDRED_P99 | $(ratio "$HUNDRED_RPS" "$ONE_RPS") |

Daemon memory after the runs, 100 sessions open: $(printf '%.1f' "$RSS") MB resident.
EOF
