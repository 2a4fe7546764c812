#!/usr/bin/env bash
# WebSocket echo round trips per second on a release daemon: through a stub (onMessage answering every message with
# a template of it) and through the forwarder to an upstream echo (Python websockets). Prints Markdown lines.
#
#   scripts/bench-websocket.sh
#
# Environment (all optional):
#   ORRERY_BIN      use this orrery binary instead of building one with scripts/build-release.sh
#   BENCH_SECONDS   how long each case runs (default 10)
#
# One client sends a 32-byte text message and waits for the answer, one at a time (Python's websockets, which is
# the slower side: the figure is a round-trip rate, not the daemon's ceiling). With taskset and two cores or more,
# the daemon runs on CPU 0 and the clients and the upstream on CPU 1. Everything listens on 127.0.0.1; the daemon
# and the upstream are stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SECONDS_EACH=${BENCH_SECONDS:-10}
BIN=${ORRERY_BIN:-}
if [ -z "$BIN" ]; then
    scripts/build-release.sh >&2
    BIN=$(swift build -c release --show-bin-path)/orrery
fi

pin_daemon=()
pin_client=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    pin_daemon=(taskset -c 0)
    pin_client=(taskset -c 1)
fi

work=$(mktemp -d)
daemon_pid=""
upstream_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
    [ -n "$upstream_pid" ] && kill "$upstream_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"${pin_client[@]}" python3 Tests/Fixtures/websocket_upstream.py > "$work/upstream.log" 2>&1 &
upstream_pid=$!
for _ in $(seq 100); do grep -q '^PORT ' "$work/upstream.log" 2>/dev/null && break; sleep 0.05; done
upstream_port=$(sed -n 's/^PORT //p' "$work/upstream.log")

mkdir -p "$work/stubs" "$work/config"
cat > "$work/stubs/echo.yaml" <<'YAML'
- request: { host: stub.local, path: /echo, websocket: true }
  response:
    websocket:
      onOpen: [ ready ]
      onMessage:
        - reply: [ { text: "{{message.text}}", template: true } ]
YAML
cat > "$work/config/hosts.json" <<JSON
{ "configurations": [ { "canonical_host": "api.example.com", "canonical_protocol": "http", "release_key": "PROD",
  "hosts": [ {"key": "PROD", "protocol": "http", "host": "127.0.0.1:$upstream_port"} ] } ] }
JSON
"${pin_daemon[@]}" "$BIN" serve --port 0 --threads 1 --stubs "$work/stubs" --config "$work/config" \
    --watch-interval 0 > "$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/daemon.log" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/daemon.log" | head -1)

stub=$("${pin_client[@]}" python3 bench/websocket_echo.py "$port" stub.local "$SECONDS_EACH")
forwarded=$("${pin_client[@]}" python3 bench/websocket_echo.py "$port" api.example.com "$SECONDS_EACH")
rate() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])["perSecond"])' "$1"; }
echo "| WebSocket echo through a stub (template reply), 1 client, 32-byte messages | $(rate "$stub") round trips/s |"
echo "| WebSocket echo through the forwarder to an upstream (Python websockets) | $(rate "$forwarded") round trips/s |"
