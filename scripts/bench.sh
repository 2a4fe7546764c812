#!/usr/bin/env bash
# Benchmark Orrery against a minimal C libevent server (bench/reference/) serving
# stubs, and against nginx as a reverse proxy in front of that server (proxy case).
#
#   scripts/bench.sh
#
# Environment (all optional):
#   ORRERY_BIN       use this orrery binary instead of building one (skips swift build)
#   ORRERY_PREVIOUS_BIN  an earlier orrery binary, measured beside this one in the same rounds of the pinned stub
#                    and proxy cases (the "previous" rows): a change's cost in one run, on one machine
#   BENCH_THREADS    worker threads for both servers (default 1)
#   WRK_THREADS      wrk -t (default 1)
#   WRK_CONNECTIONS  wrk -c (default 32)
#   WRK_DURATION     wrk -d of each measured run, in seconds, e.g. 10s (default 5s)
#   WRK_WARMUP       wrk -d of the warm-up run before a server's first measured run (default 2s)
#   BENCH_ROUNDS     measured runs per server, taken in turns so that all servers see the same machine;
#                    the run with the median throughput is reported (default 3)
#   BENCH_REPORT     where to write the Markdown report (default docs/benchmarks.md)
#   BENCH_CASES      only these cases, e.g. "small-json proxy" (of pinned, dynamic, mitm, small-json, proxy, gzip-64k,
#                    100k-stubs, memory, sessions); a partial run prints its report without writing one unless
#                    BENCH_REPORT is set
#
# The pinned case runs each server on CPU 0 and wrk on CPU 1 (taskset), so that CPU per request is the server's
# own: stub replay against the C reference and nginx (`return 200`, one worker), the same pipelined 16 deep, and
# the proxy against nginx as a reverse proxy (the upstream shares CPU 1 with wrk). dynamic (pinned too): a templated
# and a paginated stub against a static one. mitm (pinned): HTTPS replay through an intercepted CONNECT, kept alive
# and a new connection per request, against plain replay, driven by bench/reference/connect-load.c (wrk speaks
# neither CONNECT nor TLS through a proxy). The other cases leave both unpinned on the two cores, as users run them.
#
# Everything listens on 127.0.0.1 only; every server started here is stopped on exit.
# Progress goes to stderr, the Markdown result to stdout and to $BENCH_REPORT.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

THREADS=${BENCH_THREADS:-1}
WRK_THREADS=${WRK_THREADS:-1}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-32}
WRK_DURATION=${WRK_DURATION:-5s}
ROUNDS=${BENCH_ROUNDS:-3}
WRK_WARMUP=${WRK_WARMUP:-2s}
CASES=${BENCH_CASES:-pinned dynamic mitm small-json proxy gzip-64k 100k-stubs memory sessions}
if [[ -n ${BENCH_CASES:-} ]]; then REPORT_FILE=${BENCH_REPORT:-}; else REPORT_FILE=${BENCH_REPORT:-docs/benchmarks.md}; fi
HOST=127.0.0.1
READY_TIMEOUT=30          # seconds a server may take to answer its first request
BUILD_TIMEOUT=${BENCH_BUILD_TIMEOUT:-900}

log() { printf '==> %s\n' "$*" >&2; }
wants() { [[ " $CASES " == *" $1 "* ]]; }
die() { printf 'bench.sh: error: %s\n' "$*" >&2; exit 1; }
for case_name in $CASES; do
    [[ " pinned dynamic mitm small-json proxy gzip-64k 100k-stubs memory sessions " == *" $case_name "* ]] \
        || die "unknown case '$case_name' in BENCH_CASES (pinned, dynamic, mitm, small-json, proxy, gzip-64k, 100k-stubs, memory, sessions)"
done
(( ROUNDS >= 1 )) || die "BENCH_ROUNDS must be at least 1"

# ---------------------------------------------------------------- tools ------

ensure_tools() {
    if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null || ! command -v gcc >/dev/null \
        || ! command -v curl >/dev/null || ! pkg-config --exists libevent libevent_pthreads 2>/dev/null; then
        log "installing wrk, nginx-light, gcc, curl, libevent-dev, pkg-config"
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo=sudo
        # RUNLEVEL=1 keeps the nginx package from starting a system-wide server on port 80.
        $sudo env DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 timeout 300 apt-get install -y -qq wrk gcc libc6-dev curl libevent-dev pkg-config >&2
        $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 timeout 300 apt-get install -y -qq nginx-light >&2 \
            || log "nginx-light could not be installed; the proxy case runs without its nginx row"
    fi
    local t
    for t in wrk gcc curl pkg-config timeout getconf; do
        command -v "$t" >/dev/null || die "$t not found"
    done
}

# Seconds in a wrk duration ("10s", "2m", "10"), to bound each wrk run with timeout(1).
duration_seconds() {
    case $1 in
        *s) echo "${1%s}" ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *h) echo $(( ${1%h} * 3600 )) ;;
        *)  echo "$1" ;;
    esac
}

# ------------------------------------------------------ server lifecycle -----

declare -A SERVER_PID=()    # port -> pid of the server process listening on it

# A port nobody on 127.0.0.1 is listening on (a connect to it is refused).
free_port() {
    # Below the kernel's ephemeral range: a port in it can be taken at any moment as the local end of an
    # outgoing connection (the proxy's to its upstream, wrk's), between this check and the server's bind.
    local port try low=32768 high
    read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    (( low > 11000 )) || low=32768
    for try in $(seq 1 100); do
        port=$(( 10000 + RANDOM % (low - 10000) ))
        [[ -z ${SERVER_PID[$port]:-} ]] || continue
        if ! timeout 1 bash -c "exec 3<>/dev/tcp/$HOST/$port" 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    die "no free port found"
}

# start_server NAME PORT COMMAND... : start COMMAND in the background (log in
# $WORK/NAME.log) and wait until http://HOST:PORT/bench (or $READY_PATH) answers.  COMMAND must
# *be* the server process (or exec it): its pid is what CPU and RSS are read from.
start_server() {
    local name=$1 port=$2
    shift 2
    log "starting $name on port $port: $*"
    "$@" >"$WORK/$name.log" 2>&1 &
    local pid=$!
    SERVER_PID[$port]=$pid
    local deadline=$(( SECONDS + READY_TIMEOUT ))
    until curl -fsS -o /dev/null --max-time 2 "http://$HOST:$port${READY_PATH:-/bench}" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null; then
            cat "$WORK/$name.log" >&2
            die "$name exited during startup"
        fi
        if (( SECONDS >= deadline )); then
            cat "$WORK/$name.log" >&2
            die "$name did not answer on port $port within ${READY_TIMEOUT}s"
        fi
        sleep 0.05
    done
    # Guard against having reached some other process that already held the port.
    kill -0 "$pid" 2>/dev/null || die "$name exited right after startup"
}

stop_server() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do                    # up to 5 s for a clean exit
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "pid $pid ignored SIGTERM, killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local status=$? port
    set +e
    for port in "${!SERVER_PID[@]}"; do
        stop_server "${SERVER_PID[$port]}"
    done
    [[ -n ${WORK:-} ]] && rm -rf "$WORK"
    exit "$status"
}

# ------------------------------------------------------------ measuring ------

CLK_TCK=$(getconf CLK_TCK)

# utime and stime of the whole process (all threads), in clock ticks: "user system".
# Fields 14 and 15 of /proc/PID/stat; split after the last ')' because the
# command name in field 2 may contain spaces.
cpu_ticks() {
    local stat rest
    stat=$(<"/proc/$1/stat")
    rest=${stat##*) }
    local -a f
    read -ra f <<<"$rest"
    echo "${f[11]} ${f[12]}"
}

# "busy total" jiffies of the CPU the load is pinned to (WRK_PIN), from /proc/stat; "0 0" when nothing is pinned.
# In the pinned proxy case the upstream shares that CPU with wrk: when it is all busy, the throughput measured is
# the load side's, whatever the proxy in front does.
load_cpu_jiffies() {
    (( ${#WRK_PIN[@]} )) || { echo "0 0"; return; }
    awk -v cpu="cpu${WRK_PIN[-1]}" '$1 == cpu { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

port_of() { local hp=${1#*://}; hp=${hp%%/*}; echo "${hp##*:}"; }

# The command prefix that pins wrk (WRK_PIN) and servers (SERVER_PIN) in the pinned case; empty elsewhere.
WRK_PIN=()
SERVER_PIN=()

# run_wrk DURATION URL [EXTRA_WRK_ARGS...] > output
run_wrk() {
    local duration=$1 url=$2
    shift 2
    local limit=$(( $(duration_seconds "$duration") + 30 ))
    timeout "$limit" "${WRK_PIN[@]}" wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"$duration" --latency "$@" "$url" \
        || die "wrk failed or timed out against $url"
}

# measure LABEL ROUND URL [EXTRA_WRK_ARGS...]
# A warm-up run in round 1, then a measured run; prints
# "rps p50_ms p99_ms cpu_us_per_req rss_mb errors user_us_per_req load_cpu_busy_percent" (the last "-" unpinned).
measure() {
    local label=$1 round=$2 url=$3
    shift 3
    local pid=${SERVER_PID[$(port_of "$url")]:-}
    [[ -n $pid ]] || die "no server started here listens on $url"
    local out="$WORK/$label.$round.wrk"

    if (( round == 1 )); then
        log "$label: warm-up ${WRK_WARMUP}"
        run_wrk "$WRK_WARMUP" "$url" "$@" >/dev/null
    fi
    log "$label: measuring ${WRK_DURATION} (round $round of $ROUNDS)"
    local user_before system_before user_after system_after load_busy_before load_all_before load_busy_after load_all_after
    read -r user_before system_before < <(cpu_ticks "$pid")
    read -r load_busy_before load_all_before < <(load_cpu_jiffies)
    run_wrk "$WRK_DURATION" "$url" "$@" >"$out"
    read -r user_after system_after < <(cpu_ticks "$pid")
    read -r load_busy_after load_all_after < <(load_cpu_jiffies)
    kill -0 "$pid" 2>/dev/null || die "$label server died during the run"

    awk -v ticks=$(( user_after + system_after - user_before - system_before )) \
        -v user_ticks=$(( user_after - user_before )) -v hz="$CLK_TCK" -v rss_kb="$(rss_kb "$pid")" \
        -v load_busy=$(( load_busy_after - load_busy_before )) -v load_all=$(( load_all_after - load_all_before )) '
        # wrk prints latencies as e.g. 812.00us, 1.25ms, 1.02s, 1.50m
        function ms(v) {
            if (v ~ /us$/) return v * 0.001
            if (v ~ /ms$/) return v * 1
            if (v ~ /s$/)  return v * 1000
            if (v ~ /m$/)  return v * 60000
            return v
        }
        $1 == "50%"                 { p50 = ms($2) }
        $1 == "99%"                 { p99 = ms($2) }
        / requests in /             { reqs = $1 }
        /^Requests\/sec:/           { rps = $2 }
        /^ *Socket errors:/         { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
        /^ *Non-2xx or 3xx/         { errors += $NF }
        END {
            if (!reqs) { print "no requests completed" > "/dev/stderr"; exit 1 }
            load = load_all > 0 ? sprintf("%.0f", 100 * load_busy / load_all) : "-"
            printf "%.0f %.3f %.3f %.1f %.1f %d %.1f %s\n", rps, p50, p99, ticks / hz * 1e6 / reqs, rss_kb / 1024, errors,
                user_ticks / hz * 1e6 / reqs, load
        }' "$out" || die "could not parse wrk output ($out)"
}

REPORT=""
emit() { REPORT+="$*"$'\n'; }

# nginx_config NAME PORT SERVER_BODY [HTTP_BODY]: writes $WORK/NAME/nginx.conf, one process (master_process off)
# so that its CPU is all in the pid measured, listening on PORT with SERVER_BODY inside its server block and
# HTTP_BODY beside it.
nginx_config() {
    local name=$1 port=$2 body=$3 http_body=${4:-}
    mkdir -p "$WORK/$name"
    cat >"$WORK/$name/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $WORK/$name/nginx.pid;
error_log $WORK/$name/error.log error;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/$name/body;
    proxy_temp_path $WORK/$name/proxy;
    fastcgi_temp_path $WORK/$name/fastcgi;
    uwsgi_temp_path $WORK/$name/uwsgi;
    scgi_temp_path $WORK/$name/scgi;
$http_body
    server {
        listen $HOST:$port;
$body
    }
}
CONF
}

# nginx_proxy NAME PORT UPSTREAM_PORT: nginx as a reverse proxy on PORT in front of 127.0.0.1:UPSTREAM_PORT,
# keeping upstream connections alive.
nginx_proxy() {
    nginx_config "$1" "$2" "$(nginx_proxy_location)" "    upstream backend { server $HOST:$3; keepalive 64; }"
}

nginx_proxy_location() {
    cat <<BODY
        location / {
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For \$remote_addr;
            proxy_set_header Via "1.1 nginx";
            add_header Via "1.1 nginx";
        }
BODY
}

# run_case NAME "LABEL URL [WRK_SCRIPT]"... [-- EXTRA_WRK_ARGS...]
# Benchmarks each server in turn on its URL (servers must already be running, see
# start_server) and appends a Markdown section to REPORT: one row per server, then
# orrery's ratio against every other row.  One label must be "orrery".  A row's wrk
# script (wrk -s) applies to that row alone.
run_case() {
    local name=$1
    shift
    local -a labels=() urls=() scripts=() extra=()
    local -a fields
    while (( $# )); do
        if [[ $1 == -- ]]; then shift; extra=("$@"); break; fi
        read -ra fields <<<"$1"
        labels+=("${fields[0]}")
        urls+=("${fields[1]}")
        scripts+=("${fields[2]:-}")
        shift
    done
    log "case $name"
    local i
    for i in "${!urls[@]}"; do
        curl -fsS -o /dev/null --max-time 5 "${urls[$i]}" || die "${labels[$i]}: ${urls[$i]} does not answer 2xx"
    done
    # Rounds in turns: every server is measured once per round, so a machine that slows down for a while
    # slows all of them; each server's median-throughput run is reported.
    local -A runs=() result=()
    local round
    for (( round = 1; round <= ROUNDS; round++ )); do
        for i in "${!urls[@]}"; do
            local -a row_args=("${extra[@]}")
            [[ -z ${scripts[$i]} ]] || row_args+=(-s "${scripts[$i]}")
            runs[${labels[$i]}]+="$(measure "$name-${labels[$i]}" "$round" "${urls[$i]}" "${row_args[@]}")"$'\n'
        done
    done
    for i in "${!urls[@]}"; do
        result[${labels[$i]}]=$(printf '%s' "${runs[${labels[$i]}]}" | sort -n -k1,1 | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)')
    done

    emit "### $name"
    emit ""
    local pinned=$(( ${#WRK_PIN[@]} > 0 ))
    if (( pinned )); then
        emit "| server | requests/s | p50 ms | p99 ms | CPU µs/req | user µs/req | RSS MB | load CPU busy |"
        emit "|---|---:|---:|---:|---:|---:|---:|---:|"
    else
        emit "| server | requests/s | p50 ms | p99 ms | CPU µs/req | user µs/req | RSS MB |"
        emit "|---|---:|---:|---:|---:|---:|---:|"
    fi
    local label rps p50 p99 cpu rss errors user load
    for label in "${labels[@]}"; do
        read -r rps p50 p99 cpu rss errors user load <<<"${result[$label]}"
        if (( pinned )); then
            emit "| $label | $rps | $p50 | $p99 | $cpu | $user | $rss | $load% |"
            LOAD_BUSY[$name/$label]=$load
        else
            emit "| $label | $rps | $p50 | $p99 | $cpu | $user | $rss |"
        fi
        if (( errors > 0 )); then
            WARNINGS+="- $name/$label: wrk reported $errors socket errors or non-2xx/3xx responses"$'\n'
        fi
    done
    emit ""
    for label in "${labels[@]}"; do
        [[ $label != orrery ]] || continue
        emit "$(awk -v r="${result[$label]}" -v o="${result[orrery]}" -v label="$label" 'BEGIN {
            split(r, a, " "); split(o, b, " ")
            printf "- orrery/%s: throughput %s, CPU per request %s, p99 %s\n", label, x(b[1], a[1]), x(b[4], a[4]), x(b[3], a[3])
        }
        function x(num, den) { return den > 0 ? sprintf("%.2f×", num / den) : "n/a" }')"
        # Kept for the targets table: throughput, CPU per request and p99 of orrery over this row.
        RATIO[$name/$label]=$(awk -v r="${result[$label]}" -v o="${result[orrery]}" 'BEGIN {
            split(r, a, " "); split(o, b, " ")
            printf "%s %s %s", q(b[1], a[1]), q(b[4], a[4]), q(b[3], a[3])
        }
        function q(num, den) { return den > 0 ? sprintf("%.2f", num / den) : "nan" }')
    done
    emit ""
}
WARNINGS=""
declare -A RATIO=()
# The load CPU's busy share in each pinned row's reported run, by "case/label".
declare -A LOAD_BUSY=()
declare -A MITM_CPU=()

# ----------------------------------------------------------------- main ------

ensure_tools

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orrery-bench.XXXXXX")
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "building reference server"
gcc -O2 -o "$WORK/reference-server" bench/reference/reference-server.c \
    $(pkg-config --cflags --libs libevent libevent_pthreads) -lpthread

if [[ -n ${ORRERY_BIN:-} ]]; then
    ORRERY=$ORRERY_BIN
else
    command -v swift >/dev/null || die "swift not found (or set ORRERY_BIN)"
    log "building orrery (scripts/build-release.sh)"
    ORRERY="$(timeout "$BUILD_TIMEOUT" scripts/build-release.sh)"
fi
[[ -x $ORRERY ]] || die "orrery binary not found or not executable: $ORRERY"

# Case data: one stub answering GET /bench with {"ok":true}; the reference
# serves the same bytes for every request.
mkdir -p "$WORK/stubs" "$WORK/config"
cat >"$WORK/stubs/bench.json" <<'JSON'
{"request": {"method": "GET", "path": "/bench"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": "{\"ok\":true}"}}
JSON
printf '%s' '{"ok":true}' >"$WORK/body.json"

ORRERY_PORT=$(free_port)
start_server orrery "$ORRERY_PORT" "$ORRERY" serve --host "$HOST" --port "$ORRERY_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads "$THREADS" --log-level error
REFERENCE_PORT=$(free_port)
start_server reference "$REFERENCE_PORT" "$WORK/reference-server" --host "$HOST" --port "$REFERENCE_PORT" \
    --threads "$THREADS" --body "$WORK/body.json" --content-type application/json

# Pinned: every server on CPU 0, wrk on CPU 1, so CPU per request is the server's own and not shared with wrk.
if wants pinned; then
(( $(nproc) >= 2 )) || die "the pinned case needs two CPUs (leave it out with BENCH_CASES)"
command -v taskset >/dev/null || die "taskset not found (util-linux)"
command -v nginx >/dev/null || die "the pinned case compares with nginx, which is not installed"
SERVER_PIN=(taskset -c 0)
WRK_PIN=(taskset -c 1)
PIN_ORRERY_PORT=$(free_port)
start_server orrery-pinned "$PIN_ORRERY_PORT" "${SERVER_PIN[@]}" "$ORRERY" serve --host "$HOST" --port "$PIN_ORRERY_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads 1 --log-level error
PIN_REFERENCE_PORT=$(free_port)
start_server reference-pinned "$PIN_REFERENCE_PORT" "${SERVER_PIN[@]}" "$WORK/reference-server" --host "$HOST" \
    --port "$PIN_REFERENCE_PORT" --threads 1 --body "$WORK/body.json" --content-type application/json
PIN_NGINX_PORT=$(free_port)
nginx_config nginx-return "$PIN_NGINX_PORT" "        location / { default_type application/json; return 200 '{\"ok\":true}'; }"
start_server nginx-return "$PIN_NGINX_PORT" "${SERVER_PIN[@]}" nginx -p "$WORK/nginx-return" -c "$WORK/nginx-return/nginx.conf"
PREVIOUS_STUB=()
if [[ -n ${ORRERY_PREVIOUS_BIN:-} ]]; then
    PIN_PREVIOUS_PORT=$(free_port)
    start_server orrery-previous-pinned "$PIN_PREVIOUS_PORT" "${SERVER_PIN[@]}" "$ORRERY_PREVIOUS_BIN" serve --host "$HOST" \
        --port "$PIN_PREVIOUS_PORT" --stubs "$WORK/stubs" --config "$WORK/config" --threads 1 --log-level error
    PREVIOUS_STUB=("previous http://$HOST:$PIN_PREVIOUS_PORT/bench")
fi
run_case pinned-stub "reference http://$HOST:$PIN_REFERENCE_PORT/bench" "nginx http://$HOST:$PIN_NGINX_PORT/bench" \
    "${PREVIOUS_STUB[@]}" "orrery http://$HOST:$PIN_ORRERY_PORT/bench"

# 16 requests written at once per connection, as wrk's pipeline example does; wrk counts each answer.
cat >"$WORK/pipeline.lua" <<'LUA'
init = function(args)
    local requests = {}
    for i = 1, 16 do requests[i] = wrk.format(nil, wrk.path) end
    pipelined = table.concat(requests)
end
request = function() return pipelined end
LUA
run_case pinned-pipelined "unpipelined http://$HOST:$PIN_ORRERY_PORT/bench" \
    "nginx-pipelined http://$HOST:$PIN_NGINX_PORT/bench $WORK/pipeline.lua" \
    "orrery http://$HOST:$PIN_ORRERY_PORT/bench $WORK/pipeline.lua"

# The proxy: the upstream on CPU 1 beside wrk, Orrery and nginx (a reverse proxy) on CPU 0 in front of it.
PIN_UPSTREAM_PORT=$(free_port)
start_server upstream-pinned "$PIN_UPSTREAM_PORT" "${WRK_PIN[@]}" "$WORK/reference-server" --host "$HOST" \
    --port "$PIN_UPSTREAM_PORT" --threads 1 --body "$WORK/body.json" --content-type application/json
mkdir -p "$WORK/pinned-proxy-stubs" "$WORK/pinned-proxy-config"
cat >"$WORK/pinned-proxy-config/hosts.json" <<JSON
{"configurations": [{"canonical_host": "upstream.bench", "canonical_protocol": "http", "release_key": "PROD",
  "hosts": [{"key": "PROD", "host": "$HOST:$PIN_UPSTREAM_PORT", "protocol": "http"}]}]}
JSON
PIN_PROXY_PORT=$(free_port)
start_server orrery-proxy-pinned "$PIN_PROXY_PORT" "${SERVER_PIN[@]}" "$ORRERY" serve --host "$HOST" --port "$PIN_PROXY_PORT" \
    --stubs "$WORK/pinned-proxy-stubs" --config "$WORK/pinned-proxy-config" --threads 1 --log-level error
PIN_NGINX_PROXY_PORT=$(free_port)
nginx_proxy nginx-proxy-pinned "$PIN_NGINX_PROXY_PORT" "$PIN_UPSTREAM_PORT"
start_server nginx-proxy-pinned "$PIN_NGINX_PROXY_PORT" "${SERVER_PIN[@]}" nginx -p "$WORK/nginx-proxy-pinned" \
    -c "$WORK/nginx-proxy-pinned/nginx.conf"
PREVIOUS_PROXY=()
if [[ -n ${ORRERY_PREVIOUS_BIN:-} ]]; then
    PIN_PREVIOUS_PROXY_PORT=$(free_port)
    start_server orrery-previous-proxy-pinned "$PIN_PREVIOUS_PROXY_PORT" "${SERVER_PIN[@]}" "$ORRERY_PREVIOUS_BIN" serve \
        --host "$HOST" --port "$PIN_PREVIOUS_PROXY_PORT" --stubs "$WORK/pinned-proxy-stubs" --config "$WORK/pinned-proxy-config" \
        --threads 1 --log-level error
    PREVIOUS_PROXY=("previous http://$HOST:$PIN_PREVIOUS_PROXY_PORT/bench")
fi
run_case pinned-proxy "nginx http://$HOST:$PIN_NGINX_PROXY_PORT/bench" "${PREVIOUS_PROXY[@]}" "orrery http://$HOST:$PIN_PROXY_PORT/bench"
SERVER_PIN=()
WRK_PIN=()
fi

# Dynamic responses, pinned as above: the same route as a static stub, as a template (five substitutions from the
# path, a parameter, the query, a header and the method) and as a page of a 100-item collection.
if wants dynamic; then
(( $(nproc) >= 2 )) || die "the dynamic case needs two CPUs (leave it out with BENCH_CASES)"
SERVER_PIN=(taskset -c 0)
WRK_PIN=(taskset -c 1)
mkdir -p "$WORK/dynamic-stubs"
cat >"$WORK/dynamic-stubs/dynamic.yaml" <<'YAML'
- request: { method: GET, path: /static/7 }
  response:
    headers: { Content-Type: application/json }
    json: { id: "7", name: "user 7", path: "/static/7", query: "a", agent: "wrk", method: "GET", role: "member", active: true }
- request: { method: GET, path: "/templated/{id}" }
  response:
    template: true
    headers: { Content-Type: application/json }
    json: { id: "{{params.id}}", name: "user {{params.id}}", path: "{{request.path}}", query: "{{request.query.q}}", agent: "{{request.headers.user-agent}}", method: "{{request.method}}", role: "member", active: true }
YAML
awk 'BEGIN {
    printf "- request: { method: GET, path: /paginated }\n  response:\n    paginate:\n      collectionKeyPath: items\n      perPage: 10\n      items:\n"
    for (i = 1; i <= 100; i++) printf "        - { id: %d, name: \"repo %d\", stars: %d }\n", i, i, i * 7
}' >>"$WORK/dynamic-stubs/dynamic.yaml"
DYNAMIC_PORT=$(free_port)
READY_PATH=/static/7 start_server orrery-dynamic "$DYNAMIC_PORT" "${SERVER_PIN[@]}" "$ORRERY" serve --host "$HOST" --port "$DYNAMIC_PORT" \
    --stubs "$WORK/dynamic-stubs" --config "$WORK/config" --threads 1 --log-level error
run_case dynamic "static http://$HOST:$DYNAMIC_PORT/static/7?q=a" "paginated http://$HOST:$DYNAMIC_PORT/paginated?page=3" \
    "orrery http://$HOST:$DYNAMIC_PORT/templated/7?q=a" -- -H "User-Agent: wrk"
SERVER_PIN=()
WRK_PIN=()
fi

# HTTPS through an intercepted CONNECT, pinned: connect-load on CPU 1 against Orrery (--mitm) on CPU 0, plain
# requests to the same stub as the baseline. The client does TLS too, so its side caps the rates it reaches; the
# server's CPU per request is the figure to compare.
if wants mitm; then
(( $(nproc) >= 2 )) || die "the mitm case needs two CPUs (leave it out with BENCH_CASES)"
log "building bench/reference/connect-load.c"
gcc -O2 -o "$WORK/connect-load" bench/reference/connect-load.c -lssl -lcrypto -lpthread
MITM_PORT=$(free_port)
mkdir -p "$WORK/ca"
start_server orrery-mitm "$MITM_PORT" taskset -c 0 "$ORRERY" serve --host "$HOST" --port "$MITM_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads 1 --log-level error --mitm --ca-dir "$WORK/ca"
mitm_pid=${SERVER_PID[$MITM_PORT]}
# mitm_measure LABEL CLIENT_ARGUMENTS...: prints "LABEL rps cpu_us_per_request errors handshakes resumed" from the
# median of the rounds.
mitm_measure() {
    local label=$1 round before after output
    shift
    local -a runs=()
    for (( round = 1; round <= ROUNDS; round++ )); do
        before=$(cpu_ticks "$mitm_pid" | awk '{ print $1 + $2 }')
        output=$(timeout 60 taskset -c 1 "$WORK/connect-load" --proxy "$HOST:$MITM_PORT" --host api.example.test \
            --path /bench --cacert "$WORK/ca/ca.pem" --connections "$WRK_CONNECTIONS" \
            --seconds "$(duration_seconds "$WRK_DURATION")" "$@") || die "connect-load failed ($label)"
        after=$(cpu_ticks "$mitm_pid" | awk '{ print $1 + $2 }')
        runs+=("$(awk -v out="$output" -v ticks=$(( after - before )) -v hz="$CLK_TCK" 'BEGIN {
            split(out, f, " "); printf "%s %.1f %s %s %s\n", f[6], ticks / hz * 1e6 / (f[2] > 0 ? f[2] : 1), f[8], f[10], f[12] }')")
    done
    printf '%s %s\n' "$label" "$(printf '%s\n' "${runs[@]}" | sort -n -k1,1 | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)')"
}
log "mitm: plain, intercepted kept alive, intercepted with a connection per request (full and resumed handshakes)"
MITM_ROWS=$(
    mitm_measure plain --plain
    mitm_measure mitm-kept-alive
    mitm_measure mitm-new-connection --requests-per-connection 1
    mitm_measure mitm-new-connection-resumed --requests-per-connection 1 --resume
)
emit "### mitm"
emit ""
emit "| client → Orrery | requests/s | server CPU µs/req | errors | handshakes | resumed |"
emit "|---|---:|---:|---:|---:|---:|"
while read -r label rps cpu errors handshakes resumed; do
    emit "| $label | $rps | $cpu | $errors | $handshakes | $resumed |"
    MITM_CPU[$label]=$cpu
done <<<"$MITM_ROWS"
emit ""
emit "$(awk -v p="${MITM_CPU[plain]}" -v k="${MITM_CPU[mitm-kept-alive]}" -v n="${MITM_CPU[mitm-new-connection]}" \
    -v r="${MITM_CPU[mitm-new-connection-resumed]}" 'BEGIN {
    printf "- server capacity, kept-alive MITM / plain (plain CPU per request over MITM CPU per request): %.2f×; a new connection per request: %.3f× (full handshakes), %.3f× (resumed)", p / k, p / n, p / r }')"
emit ""
fi

# The same stubs with the journal off, and with a traffic log besides the journal, against the default
# (journal on): what capturing every exchange costs.
if wants small-json; then
QUIET_PORT=$(free_port)
start_server orrery-quiet "$QUIET_PORT" "$ORRERY" serve --host "$HOST" --port "$QUIET_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads "$THREADS" --log-level error --journal-entries 0
LOGGING_PORT=$(free_port)
start_server orrery-logging "$LOGGING_PORT" "$ORRERY" serve --host "$HOST" --port "$LOGGING_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads "$THREADS" --log-level error \
    --log-traffic "$WORK/traffic.jsonl"
run_case small-json "reference http://$HOST:$REFERENCE_PORT/bench" "journal-off http://$HOST:$QUIET_PORT/bench" \
    "traffic-log http://$HOST:$LOGGING_PORT/bench" "orrery http://$HOST:$ORRERY_PORT/bench"
fi

# Proxy: no stub answers, so Orrery forwards every request to the reference
# server as its upstream (the host map's only configuration is the default).
# Compared with the upstream straight and with nginx as a reverse proxy in front
# of the same upstream, both keeping upstream connections alive.
if wants proxy; then
mkdir -p "$WORK/proxy-stubs" "$WORK/proxy-config"
cat >"$WORK/proxy-config/hosts.json" <<JSON
{"configurations": [{"canonical_host": "upstream.bench", "canonical_protocol": "http", "release_key": "PROD",
  "hosts": [{"key": "PROD", "host": "$HOST:$REFERENCE_PORT", "protocol": "http"}]}]}
JSON
PROXY_PORT=$(free_port)
start_server orrery-proxy "$PROXY_PORT" "$ORRERY" serve --host "$HOST" --port "$PROXY_PORT" \
    --stubs "$WORK/proxy-stubs" --config "$WORK/proxy-config" --threads "$THREADS" --log-level error
proxy_rows=("upstream-direct http://$HOST:$REFERENCE_PORT/bench")
if command -v nginx >/dev/null; then
    NGINX_PORT=$(free_port)
    nginx_proxy nginx "$NGINX_PORT" "$REFERENCE_PORT"
    start_server nginx "$NGINX_PORT" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
    proxy_rows+=("nginx http://$HOST:$NGINX_PORT/bench")
else
    WARNINGS+="- proxy: nginx is not installed, so the nginx reverse-proxy row is missing"$'\n'
fi
run_case proxy "${proxy_rows[@]}" "orrery http://$HOST:$PROXY_PORT/bench"
fi

# 64 KB of JSON: Orrery gzips it once at load time and sends the compressed bytes to a client that accepts gzip;
# the reference sends the same 64 KB uncompressed.
if wants gzip-64k; then
mkdir -p "$WORK/large-stubs/bodies"
awk 'BEGIN {
    printf "["
    for (i = 0; ; i++) {
        row = sprintf("{\"id\":%d,\"name\":\"user %d\",\"email\":\"user%d@example.com\",\"score\":%d,\"tags\":[\"t%d\",\"t%d\"]}", i, i, i * 7919 % 10007, (i * 37) % 1000, i % 13, i % 29)
        if (length(out) + length(row) + 2 > 65536) break
        out = out (i ? "," : "") row
    }
    printf "%s]", out
}' >"$WORK/large-stubs/bodies/large.json"
cat >"$WORK/large-stubs/large.json" <<'JSON'
{"request": {"method": "GET", "path": "/bench"}, "response": {"headers": {"Content-Type": "application/json"}, "bodyFile": "bodies/large.json"}}
JSON
LARGE_PORT=$(free_port)
start_server orrery-large "$LARGE_PORT" "$ORRERY" serve --host "$HOST" --port "$LARGE_PORT" \
    --stubs "$WORK/large-stubs" --config "$WORK/config" --threads "$THREADS" --log-level error
LARGE_REFERENCE_PORT=$(free_port)
start_server reference-large "$LARGE_REFERENCE_PORT" "$WORK/reference-server" --host "$HOST" \
    --port "$LARGE_REFERENCE_PORT" --threads "$THREADS" --body "$WORK/large-stubs/bodies/large.json" \
    --content-type application/json
run_case gzip-64k "reference-uncompressed http://$HOST:$LARGE_REFERENCE_PORT/bench" \
    "orrery http://$HOST:$LARGE_PORT/bench" -- -H "Accept-Encoding: gzip"
fi

# 100,000 exact-route stubs and 1,000 regex stubs (generated here, in files of 1,000), against 10 stubs; the
# request goes to one route among them. Start-up is timed until the first answer.
if wants 100k-stubs; then
mkdir -p "$WORK/many-stubs" "$WORK/ten-stubs"
cp "$WORK/stubs/bench.json" "$WORK/many-stubs/bench.json"
cp "$WORK/stubs/bench.json" "$WORK/ten-stubs/bench.json"
awk -v dir="$WORK/many-stubs" 'BEGIN {
    for (f = 0; f < 100; f++) {
        file = sprintf("%s/items-%03d.json", dir, f)
        printf "[" >file
        for (i = 0; i < 1000; i++)
            printf "%s{\"request\":{\"method\":\"GET\",\"path\":\"/items/%d/%d\"},\"response\":{\"headers\":{\"Content-Type\":\"application/json\"},\"body\":\"{\\\"id\\\":%d}\"}}", (i ? "," : ""), f, i, i >file
        printf "]" >file
        close(file)
    }
    file = dir "/patterns.json"
    printf "[" >file
    for (i = 0; i < 1000; i++)
        printf "%s{\"request\":{\"urlPattern\":\"^/patterns/%d/[0-9]+$\"},\"response\":{\"body\":\"pattern\"}}", (i ? "," : ""), i >file
    printf "]" >file
    close(file)
    file = dir "/../ten-stubs/others.json"
    printf "[" >file
    for (i = 0; i < 9; i++)
        printf "%s{\"request\":{\"method\":\"GET\",\"path\":\"/items/%d\"},\"response\":{\"body\":\"{}\"}}", (i ? "," : ""), i >file
    printf "]" >file
}'
TEN_PORT=$(free_port)
start_server orrery-ten "$TEN_PORT" "$ORRERY" serve --host "$HOST" --port "$TEN_PORT" \
    --stubs "$WORK/ten-stubs" --config "$WORK/config" --threads "$THREADS" --log-level error
MANY_PORT=$(free_port)
many_started=$(date +%s.%N)
start_server orrery-many "$MANY_PORT" "$ORRERY" serve --host "$HOST" --port "$MANY_PORT" \
    --stubs "$WORK/many-stubs" --config "$WORK/config" --threads "$THREADS" --log-level error
MANY_STARTUP=$(awk -v a="$many_started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
MANY_RSS=$(awk '{ printf "%.1f", $1 / 1024 }' <<<"$(rss_kb "${SERVER_PID[$MANY_PORT]}")")
run_case 100k-stubs "ten-stubs http://$HOST:$TEN_PORT/bench" "orrery http://$HOST:$MANY_PORT/bench"
fi

# The repository's own examples, as `scripts/run.sh` serves them: resident memory after a few requests.
if wants memory; then
EXAMPLES_PORT=$(free_port)
READY_PATH=/__admin/health start_server orrery-examples "$EXAMPLES_PORT" "$ORRERY" serve --host "$HOST" --port "$EXAMPLES_PORT" \
    --stubs stubs --config config --no-proxy --threads "$THREADS" --log-level error
for path in /api/v1/users/1 /api/v1/user/1 /__admin/health /__admin/stubs; do
    curl -s -o /dev/null --max-time 5 "http://$HOST:$EXAMPLES_PORT$path" || true
done
EXAMPLES_RSS=$(awk '{ printf "%.1f", $1 / 1024 }' <<<"$(rss_kb "${SERVER_PID[$EXAMPLES_PORT]}")")
# Memory under a minute of full load with the journal on (its default bounds): resident memory 10 s in, once the
# journal is full, against 60 s in.
SOAK_PORT=$(free_port)
start_server orrery-soak "$SOAK_PORT" "$ORRERY" serve --host "$HOST" --port "$SOAK_PORT" \
    --stubs "$WORK/stubs" --config "$WORK/config" --threads "$THREADS" --log-level error
log "orrery-soak: 60 s of full load"
run_wrk 60s "http://$HOST:$SOAK_PORT/bench" >"$WORK/soak.wrk" &
SOAK_WRK=$!
sleep 10
SOAK_RSS_10=$(rss_kb "${SERVER_PID[$SOAK_PORT]}")
wait "$SOAK_WRK"
SOAK_RSS_60=$(rss_kb "${SERVER_PID[$SOAK_PORT]}")
SOAK_REQUESTS=$(awk '/ requests in / { print $1 }' "$WORK/soak.wrk")
fi

if wants 100k-stubs || wants memory; then
    emit "### start-up and memory"
    emit ""
fi
if wants 100k-stubs; then
    emit "- 100,000 exact-route stubs and 1,000 regex stubs: first answer $MANY_STARTUP s after start, RSS $MANY_RSS MB before any request"
fi
if wants memory; then
    emit "- the repository's examples (\`stubs/\`, \`config/\`, \`--no-proxy\`): RSS $EXAMPLES_RSS MB after a few requests"
    emit "$(awk -v a="$SOAK_RSS_10" -v b="$SOAK_RSS_60" -v n="$SOAK_REQUESTS" 'BEGIN {
        printf "- 60 s of full load with the journal on (%s requests): RSS %.1f MB at 10 s, %.1f MB at 60 s (%.2f×)", n, a / 1024, b / 1024, b / a
    }')"
fi
emit ""

# Sessions: opened and ended per second, and serving with 100 open (scripts/bench-sessions.sh, the same binary).
if wants sessions; then
    log "sessions: scripts/bench-sessions.sh"
    SESSIONS_REPORT=$(ORRERY_BIN="$ORRERY" BENCH_THREADS="$THREADS" WRK_CONNECTIONS="$WRK_CONNECTIONS" \
        WRK_DURATION="$WRK_DURATION" BENCH_ROUNDS="$ROUNDS" scripts/bench-sessions.sh)
    emit "${SESSIONS_REPORT//### Sessions/### sessions}"
    emit ""
    SESSION_CYCLE_US=$(grep -o 'opened and ended (one client) | \*\*[0-9.]* µs' <<<"$SESSIONS_REPORT" | grep -o '[0-9.]*' | tail -1)
    SESSION_HUNDRED=$(grep '100 sessions open (each' <<<"$SESSIONS_REPORT" | awk -F'|' '{ gsub(/ /, "", $6); print $6 }')
fi

# ---------------------------------------------------------------- report -----

# ---------------------------------------------------------------- targets ----

# target LABEL VALUE OP LIMIT UNIT: one row of the table, met or missed.
TARGETS=""
target() {
    local label=$1 value=$2 op=$3 limit=$4 unit=${5:-}
    [[ -n $value && $value != nan ]] || return 0
    local met
    met=$(awk -v v="$value" -v l="$limit" -v op="$op" 'BEGIN { print ((op == ">=" ? v >= l : v <= l) ? "met" : "**missed**") }')
    local shown=${op/>=/≥}
    TARGETS+="| $label | $value$unit | ${shown/<=/≤} $limit$unit | $met |"$'\n'
}
ratio() { local -a parts=(${RATIO[$1]:-}); echo "${parts[$2]:-}"; }
if wants dynamic; then
    target "templated answer: CPU per request / static" "$(ratio dynamic/static 1)" "<=" 1.25 ×
fi
if wants mitm; then
    target "kept-alive MITM: server capacity / plain" \
        "$(awk -v p="${MITM_CPU[plain]:-0}" -v k="${MITM_CPU[mitm-kept-alive]:-0}" 'BEGIN { if (k > 0) printf "%.2f", p / k; else print "nan" }')" ">=" 0.8 ×
fi
if wants pinned; then
    target "pinned: stub throughput / C reference" "$(ratio pinned-stub/reference 0)" ">=" 1.3 ×
    target "pinned: stub CPU per request / nginx" "$(ratio pinned-stub/nginx 1)" "<=" 1.25 ×
    target "pinned: pipelined 16 deep / unpipelined throughput" "$(ratio pinned-pipelined/unpipelined 0)" ">=" 2 ×
    target "pinned: proxy throughput / nginx reverse proxy" "$(ratio pinned-proxy/nginx 0)" ">=" 1.2 ×
    target "pinned: proxy CPU per request / nginx reverse proxy" "$(ratio pinned-proxy/nginx 1)" "<=" 1.0 ×
    # The upstream runs beside wrk on the load CPU; when that CPU is all but saturated under both proxies, neither
    # throughput is the proxy's own, and their ratio says little.
    load_orrery=${LOAD_BUSY[pinned-proxy/orrery]:--} load_nginx=${LOAD_BUSY[pinned-proxy/nginx]:--}
    if [[ $load_orrery != - && $load_nginx != - ]] && (( load_orrery >= 95 && load_nginx >= 95 )); then
        WARNINGS+="- pinned-proxy: the load CPU (wrk and the upstream) was ${load_nginx}% busy under nginx and"
        WARNINGS+=" ${load_orrery}% under Orrery, so both throughputs are the load side's: the throughput ratio does"
        WARNINGS+=" not measure the proxies (CPU per request does)"$'\n'
    fi
fi
if wants small-json; then
    target "small JSON stub: throughput / C reference" "$(ratio small-json/reference 0)" ">=" 0.95 ×
    target "small JSON stub: CPU per request / C reference" "$(ratio small-json/reference 1)" "<=" 1.1 ×
    target "small JSON stub: p99 / C reference" "$(ratio small-json/reference 2)" "<=" 1.5 ×
    target "journal on (default bounds) / off: throughput" "$(ratio small-json/journal-off 0)" ">=" 0.9 ×
fi
if wants proxy; then
    target "proxy: throughput / nginx" "$(ratio proxy/nginx 0)" ">=" 0.9 ×
fi
if wants gzip-64k; then
    target "64 KB gzip stub: throughput / reference uncompressed" "$(ratio gzip-64k/reference-uncompressed 0)" ">=" 0.8 ×
fi
if wants 100k-stubs; then
    target "100,000 + 1,000 regex stubs: throughput / 10 stubs" "$(ratio 100k-stubs/ten-stubs 0)" ">=" 0.9 ×
    target "100,000 stubs: start-up to first answer" "$MANY_STARTUP" "<=" 2 " s"
    target "100,000 stubs: resident memory" "$MANY_RSS" "<=" 150 " MB"
fi
if wants memory; then
    target "the examples: resident memory" "$EXAMPLES_RSS" "<=" 20 " MB"
    target "60 s at full load, journal on: RSS at 60 s / at 10 s" \
        "$(awk -v a="$SOAK_RSS_10" -v b="$SOAK_RSS_60" 'BEGIN { printf "%.2f", b / a }')" "<=" 1.1 ×
fi
if wants sessions; then
    target "a session opened and ended: the daemon's CPU" "${SESSION_CYCLE_US:-}" "<=" 1000 " µs"
    target "serving with 100 sessions open / one session" "${SESSION_HUNDRED:-}" ">=" 0.9 ×
fi
if [[ -n $TARGETS ]]; then
    REPORT="### targets"$'\n\n'"| target | measured | goal | |"$'\n'"|---|---:|---:|---|"$'\n'"$TARGETS"$'\n'"$REPORT"
fi

[[ -z $WARNINGS ]] || REPORT+=$'**Warnings**\n\n'"$WARNINGS"
printf '%s' "$REPORT"

[[ -n $REPORT_FILE ]] || exit 0
mkdir -p "$(dirname "$REPORT_FILE")"
{
    echo "# Benchmarks"
    echo
    echo "Orrery compared with a minimal C libevent server (\`bench/reference/reference-server.c\`),"
    echo "both serving \`{\"ok\":true}\` on 127.0.0.1. \"orrery\" runs with its defaults (the journal on);"
    echo "\"journal-off\" is the same daemon with \`--journal-entries 0\`, \"traffic-log\" the default plus"
    echo "\`--log-traffic\`. In the proxy case the C server is the upstream:"
    echo "Orrery forwards to it (no stub answers), compared with wrk straight to it and with nginx"
    echo "(one process, upstream keep-alive) as a reverse proxy in front of it. gzip-64k: a 64 KB JSON stub"
    echo "to a client that accepts gzip, against the reference sending the same bytes uncompressed."
    echo "100k-stubs: 100,000 exact-route and 1,000 regex stubs against 10, the request to one route."
    echo "The pinned cases (pinned, dynamic, mitm) run each server on CPU 0 and the load on CPU 1 with \`taskset\`,"
    echo "so that CPU per request is the server's own: stub replay against the C server and nginx (\`return 200\`,"
    echo "one worker), the same pipelined 16 deep, the proxy against nginx as a reverse proxy; a templated and a"
    echo "paginated stub against a static one; HTTPS replay through an intercepted CONNECT against plain replay,"
    echo "driven by \`bench/reference/connect-load.c\`. sessions: \`scripts/bench-sessions.sh\` with the same binary."
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Kernel: $(uname -r), CPUs: $(nproc) ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo))"
    echo "- Server threads: $THREADS"
    echo "- wrk: \`wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d$WRK_DURATION --latency\`, after a ${WRK_WARMUP} warm-up run per server;"
    echo "  $ROUNDS measured runs per server, the servers taking turns, the median-throughput run reported"
    echo "- Orrery binary: \`${ORRERY_BIN:-scripts/build-release.sh}\`"
    echo "- Command: \`BENCH_THREADS=$THREADS WRK_THREADS=$WRK_THREADS WRK_CONNECTIONS=$WRK_CONNECTIONS WRK_DURATION=$WRK_DURATION WRK_WARMUP=$WRK_WARMUP BENCH_ROUNDS=$ROUNDS scripts/bench.sh\`"
    echo
    echo "CPU µs/req is the server process's utime+stime (all threads, /proc/PID/stat) during"
    echo "the measured run divided by the requests wrk completed, user µs/req the utime part of it; RSS is VmRSS"
    echo "after the run. In the pinned cases, load CPU busy is how busy CPU 1 (wrk, and in the proxy case the"
    echo "upstream) was during the run: near 100%, the throughput measured is the load side's."
    echo "In the cases that are not pinned, wrk runs on the same machine and competes with the server for CPU."
    echo
    printf '%s' "$REPORT"
    # What the profile says stands in the way of the targets that are close or missed (kept by hand).
    if [[ -f bench/notes.md ]]; then echo; cat bench/notes.md; fi
} >"$REPORT_FILE"
log "report written to $REPORT_FILE"
