#!/usr/bin/env bash
# HTTP/2 benchmarks, pinned (server on CPU 0, h2load on CPU 1), one run each:
#   1. h2c: `h2load -c32 -m16` against Orrery's h2c (prior knowledge) and nginx's `listen ... http2`, both answering a
#      2-byte JSON body; Orrery with its defaults (journal on) and with --journal-entries 0.
#   2. TLS: Orrery's TLS port, kept alive, h2 (-m16) against HTTP/1.1 (`h2load --h1`, one request at a time).
#   3. HTTP/1.1 on the plain port (`h2load --h1`), for the same stub.
#   4. 100 streams on one connection, one of them delayed 500 ms: when the 99 others ended.
#
#   scripts/bench-http2.sh            (ORRERY_BIN: a release binary; default .build/release/orrery)
#
# CPU µs/request: the server's utime+stime over the run (/proc/PID/stat) divided by the requests completed.
# Everything listens on 127.0.0.1; every server started here is stopped on exit. Markdown goes to stdout.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${ORRERY_BIN:-$ROOT/.build/release/orrery}
DURATION=${H2LOAD_DURATION:-5}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/stubs"
cat > "$WORK/stubs/bench.yaml" <<'YAML'
- request: { method: GET, path: / }
  response: { headers: { Content-Type: application/json }, body: "{}" }
- request: { method: GET, path: /slow }
  response: { body: "{}", delay: 500 }
YAML

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
clock_ticks=$(getconf CLK_TCK)

# run NAME PID H2LOAD-ARGS...: one measured run after a one-second warm-up; prints a table row.
run() {
    local name=$1 pid=$2
    shift 2
    taskset -c 1 h2load -D 1 "$@" >/dev/null 2>&1 || true
    local before after output requests rate
    before=$(ticks "$pid")
    output=$(taskset -c 1 h2load -D "$DURATION" "$@" 2>&1)
    after=$(ticks "$pid")
    requests=$(echo "$output" | awk '/^requests:/ { print $8 }')
    rate=$(echo "$output" | awk '/^finished in/ { gsub(",", "", $4); print $4 }')
    local cpu
    cpu=$(awk -v t=$((after - before)) -v hz="$clock_ticks" -v n="$requests" 'BEGIN { printf "%.2f", n ? t / hz * 1e6 / n : 0 }')
    printf '| %s | %s | %s | %s |\n' "$name" "${rate%.*}" "$requests" "$cpu"
}

start_orrery() {
    local log=$1
    shift
    taskset -c 0 "$BIN" serve --port 0 --stubs "$WORK/stubs" --config "$WORK/none" --threads 1 --log-level error \
        --ca-dir "$WORK/ca" "$@" > "$log" 2>&1 &
    PIDS+=($!)
    local pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
    echo "$pid"
}

port_of() { grep -o 'http://127.0.0.1:[0-9]*' "$1" | head -1 | sed 's/.*://'; }

orrery_pid=$(start_orrery "$WORK/orrery.log" --tls-port 0)
orrery_port=$(port_of "$WORK/orrery.log")
tls_port=$(grep -o 'HTTPS on port [0-9]*' "$WORK/orrery.log" | grep -o '[0-9]*$')
quiet_pid=$(start_orrery "$WORK/quiet.log" --journal-entries 0)
quiet_port=$(port_of "$WORK/quiet.log")

nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$WORK/nginx"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000000;
    http2_max_concurrent_streams 100;
    client_body_temp_path $WORK/nginx;
    proxy_temp_path $WORK/nginx;
    fastcgi_temp_path $WORK/nginx;
    uwsgi_temp_path $WORK/nginx;
    scgi_temp_path $WORK/nginx;
    server {
        listen 127.0.0.1:$nginx_port http2;
        location / { default_type application/json; return 200 '{}'; }
    }
}
CONF
taskset -c 0 nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/nginx/nginx.pid" ] && break; sleep 0.1; done
nginx_pid=$(cat "$WORK/nginx/nginx.pid")

echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs; $(h2load --version | head -1); nginx $(nginx -v 2>&1 | sed 's/.*\///')"
echo "- Server on CPU 0, h2load on CPU 1, ${DURATION} s per run after a 1 s warm-up, one run each"
echo
echo "| case | req/s | requests | server CPU µs/request |"
echo "|---|---:|---:|---:|"
run "h2c -c32 -m16: orrery (journal on)" "$orrery_pid" -c32 -m16 "http://127.0.0.1:$orrery_port/"
run "h2c -c32 -m16: orrery --journal-entries 0" "$quiet_pid" -c32 -m16 "http://127.0.0.1:$quiet_port/"
run "h2c -c32 -m16: nginx http2, 1 worker" "$nginx_pid" -c32 -m16 "http://127.0.0.1:$nginx_port/"
run "HTTP/1.1 -c32: orrery --journal-entries 0" "$quiet_pid" --h1 -c32 "http://127.0.0.1:$quiet_port/"
run "TLS kept alive, h2 -c32 -m16: orrery" "$orrery_pid" -c32 -m16 "https://127.0.0.1:$tls_port/"
run "TLS kept alive, HTTP/1.1 -c32: orrery" "$orrery_pid" --h1 -c32 "https://127.0.0.1:$tls_port/"

# 100 streams on one connection, one delayed: when did the others end?
requests=$(python3 -c 'import json; print(json.dumps({"requests": [{"path": "/slow"}] + [{"path": "/"}] * 99, "timeout": 5}))')
echo "$requests" | python3 "$ROOT/Tests/Fixtures/h2_client.py" "$quiet_port" requests | python3 -c '
import json, sys
streams = json.load(sys.stdin)["streams"]
others = [s["ms"] for s in streams[1:] if s["status"] == "200"]
print()
print("100 streams on one connection, the first delayed 500 ms: the other %d answered within %d ms; the delayed one at %s ms."
      % (len(others), max(others), streams[0]["ms"]))'
