#!/usr/bin/env bash
# What metrics and the fleet cost, printed as a Markdown section for docs/benchmarks.md:
#   1. pinned stub replay with metrics on and off (--no-metrics): callgrind instructions per answer, the daemon on
#      CPU 0 and a keep-alive client on CPU 1, the same requests for both (exactly repeatable, unlike seconds);
#   2. wrk through nginx (deploy/nginx/nginx.conf, servers and port on loopback) in front of 3 replicas, against
#      wrk straight to one daemon: what the hop costs;
#   3. a replica's memory (VmRSS) idle, and after a load with the journal on: the Kubernetes manifests' figures.
# Everything binds 127.0.0.1 on ports the system picks, and stops by itself.
#
#   scripts/bench-fleet.sh                 # REQUESTS=20000 WRK_DURATION=5s by default; ORRERY_BIN skips the build
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${REQUESTS:-20000}
WRK_DURATION=${WRK_DURATION:-5s}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-32}

for tool in valgrind wrk nginx python3 taskset; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || { echo "bench-fleet: $tool is not installed" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
BINARY=${ORRERY_BIN:-$(scripts/build-release.sh)}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift writes: measure a copy without it.
strip --strip-debug -o "$WORK/orrery" "$BINARY"
mkdir -p "$WORK/stubs"
printf -- '- request: {method: GET, path: /bench}\n  response: {status: 200, json: {ok: true}}\n' >"$WORK/stubs/bench.yaml"

# Starts a daemon with a ready file and prints "PID PORT" once it answers.
start_daemon() {
    local name=$1
    shift
    "$@" serve --port 0 --stubs "$WORK/stubs" --config "$WORK/config" --threads 1 --log-level error \
        --watch-interval 0 --ready-file "$WORK/$name.ready" "${EXTRA[@]}" >"$WORK/$name.log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1 600); do
        [[ -s "$WORK/$name.ready" ]] && break
        kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "$pid $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$WORK/$name.ready")"
}

# N keep-alive GETs over one connection, from CPU 1.
requests() {
    taskset -c 1 python3 - "$1" "$2" <<'PY'
import http.client, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(count):
    connection.request("GET", "/bench")
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
PY
}

# Instructions the daemon ran for REQUESTS answers. Each callgrind dump holds what ran since the one before (the
# counters are zeroed at a dump), so the second dump holds the measured requests alone, without start-up or warm-up.
instructions_per_answer() {
    local name=$1
    shift
    EXTRA=("$@")
    read -r pid port < <(start_daemon "$name" taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$WORK/$name.cg" "$WORK/orrery")
    requests "$port" 2000
    callgrind_control -d "$pid" >/dev/null 2>&1
    requests "$port" "$REQUESTS"
    callgrind_control -d "$pid" >/dev/null 2>&1
    local measured
    measured=$(grep -h '^totals:\|^summary:' "$(ls -v "$WORK/$name.cg".* | tail -1)" | tail -1 | awk '{print $2}')
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo $((measured / REQUESTS))
}

on=$(instructions_per_answer metrics-on)
off=$(instructions_per_answer metrics-off --no-metrics)

# wrk's requests/s and p50/p99 for one URL, with optional headers.
wrk_run() {
    local url=$1
    shift
    wrk -t1 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency "$@" "$url" >"$WORK/wrk.out"
    local rps p50 p99
    rps=$(awk '/Requests\/sec/ {print int($2)}' "$WORK/wrk.out")
    p50=$(awk '$1 == "50%" {print $2}' "$WORK/wrk.out")
    p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.out")
    echo "$rps | $p50 | $p99"
}

EXTRA=()
ports=()
daemon_pids=()
for index in 0 1 2; do
    read -r pid port < <(start_daemon "replica-$index" "$WORK/orrery")
    ports+=("$port")
    daemon_pids+=("$pid")
done
idle_rss=$(awk '/VmRSS/ {print $2}' "/proc/${daemon_pids[0]}/status")
NGINX_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
python3 - deploy/nginx/nginx.conf "$WORK/nginx/nginx.conf" "$NGINX_PORT" "$WORK/nginx" "${ports[@]}" <<'PY'
import sys
source, out, port, prefix, servers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
lines, index = [], 0
for line in open(source).read().split("\n"):
    stripped = line.strip()
    if stripped.startswith("server orrery-"):
        lines.append("        server 127.0.0.1:%s %s" % (servers[index], " ".join(stripped.split(" ")[2:])))
        index += 1
    elif stripped == "listen 8080;":
        lines.append("        listen 127.0.0.1:%s;" % port)
    elif stripped == "http {":
        lines.append(line)
        lines += ["    %s_temp_path %s/tmp/%s;" % (kind, prefix, kind) for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")]
    else:
        lines.append(line)
open(out, "w").write("\n".join(lines))
PY
"$NGINX" -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -g "daemon off; pid $WORK/nginx/nginx.pid; error_log $WORK/nginx/logs/error.log;" &
PIDS+=($!)
for _ in $(seq 1 100); do curl -s --noproxy '*' -o /dev/null "http://127.0.0.1:$NGINX_PORT/__admin/health" && break; sleep 0.1; done
curl -s --noproxy '*' -o /dev/null -X POST -H 'X-Orrery-Session: bench' "http://127.0.0.1:$NGINX_PORT/__admin/sessions"
wrk -t1 -c"$WRK_CONNECTIONS" -d2s "http://127.0.0.1:${ports[0]}/bench" >/dev/null
direct=$(wrk_run "http://127.0.0.1:${ports[0]}/bench")
fleet=$(wrk_run "http://127.0.0.1:$NGINX_PORT/bench" -H 'X-Orrery-Session: bench')
fleet_main=$(wrk_run "http://127.0.0.1:$NGINX_PORT/bench")
loaded_rss=$(awk '/VmRSS/ {print $2}' "/proc/${daemon_pids[0]}/status")

cat <<EOF2
### metrics and the fleet hop

\`scripts/bench-fleet.sh\`, release build, \`--threads 1\`, 2 cores; $(date -u '+%Y-%m-%d %H:%M UTC').

| pinned stub replay (daemon on CPU 0, one keep-alive client on CPU 1), callgrind | instructions per answer |
|---|---:|
| metrics off (\`--no-metrics\`) | $off |
| metrics on (the default) | $on |
| metrics' share | $(python3 -c "print('%+.2f%%' % (($on - $off) * 100.0 / $off))") |

| wrk -c$WRK_CONNECTIONS -d$WRK_DURATION, a small JSON stub, unpinned | requests/s | p50 | p99 |
|---|---:|---:|---:|
| one daemon directly | $direct |
| nginx (deploy/nginx/nginx.conf) in front of 3 replicas, \`X-Orrery-Session: bench\` (one replica) | $fleet |
| nginx in front of 3 replicas, no header (spread over all three) | $fleet_main |

A replica's memory (VmRSS): $((idle_rss / 1024)) MB idle, $((loaded_rss / 1024)) MB after the loads above with the journal on.
EOF2
