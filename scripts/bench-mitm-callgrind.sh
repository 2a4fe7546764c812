#!/usr/bin/env bash
# Instructions the daemon spends per request on HTTPS through an intercepted CONNECT, against plain replay of the
# same stub, and per new connection with a full and with a resumed TLS handshake, under callgrind. Instruction
# counts do not depend on the machine's load, so they compare runs made at different times or on a busy machine.
#
#   scripts/bench-mitm-callgrind.sh            (ORRERY_BIN=path to use a built binary; default: a release build)
#
# Each figure comes from two runs on a fresh daemon (`--toggle-collect=event_base_loop`: only what its event loop
# does) that differ only in the number of requests, N1 and N2, made one after the other by
# bench/reference/connect-load.c: (instructions of run 2 - instructions of run 1) / (N2 - N1). Start-up, the CA,
# the first leaf certificate and the first handshake cancel out.
#   plain        GET /bench on one kept-alive plain connection
#   mitm         the same through CONNECT + TLS (TLS 1.3, EC P-256 leaf), one kept-alive connection
#   handshake    a new CONNECT + full TLS handshake + one request per connection
#   resumed      the same, each connection resuming the previous one's session (TLS 1.3 ticket)
# Environment: KEPT_REQUESTS="200 1200" and NEW_CONNECTIONS="20 120" (N1 N2 of each kind), CALLGRIND_CASES
# (default "plain mitm handshake resumed"), KEEP_DUMPS (a folder to keep callgrind's outputs in, named by port).
set -euo pipefail
cd "$(dirname "$0")/.."

HOST=127.0.0.1
read -r KEPT1 KEPT2 <<<"${KEPT_REQUESTS:-200 1200}"
read -r NEW1 NEW2 <<<"${NEW_CONNECTIONS:-20 120}"
CASES=${CALLGRIND_CASES:-plain mitm handshake resumed}
command -v valgrind >/dev/null || { echo "valgrind is missing (scripts/install-dependencies.sh --with-test-tools)" >&2; exit 1; }

ORRERY=${ORRERY_BIN:-$(scripts/build-release.sh)}
WORK=$(mktemp -d)
SERVER=""
cleanup() {
    if [[ -n $SERVER ]]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
    if [[ -n ${KEEP_DUMPS:-} ]]; then cp "$WORK"/callgrind.* "$KEEP_DUMPS"/ 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# valgrind 3.19 cannot read the DWARF 5 that Swift writes: a copy without debug information.
strip --strip-debug -o "$WORK/orrery" "$ORRERY"
gcc -O2 -o "$WORK/connect-load" bench/reference/connect-load.c -lssl -lcrypto -lpthread
mkdir -p "$WORK/stubs" "$WORK/config" "$WORK/ca"
cat >"$WORK/stubs/bench.json" <<'JSON'
{"request": {"method": "GET", "path": "/bench"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": "{\"ok\":true}"}}
JSON

free_port() {
    local port
    for _ in $(seq 1 100); do
        port=$(( 10000 + RANDOM % 20000 ))
        if ! timeout 1 bash -c "exec 3<>/dev/tcp/$HOST/$port" 2>/dev/null; then echo "$port"; return; fi
    done
    echo "no free port" >&2
    exit 1
}

# instructions CLIENT_ARGUMENTS...: runs a fresh daemon under callgrind, the client against it, stops the daemon,
# and prints the instructions its event loop executed.
instructions() {
    local port out
    port=$(free_port)
    out="$WORK/callgrind.$port"
    valgrind --tool=callgrind --toggle-collect=event_base_loop --callgrind-out-file="$out" \
        "$WORK/orrery" serve --host "$HOST" --port "$port" --stubs "$WORK/stubs" --config "$WORK/config" \
        --threads 1 --log-level error --mitm --ca-dir "$WORK/ca" >"$WORK/daemon.log" 2>&1 &
    SERVER=$!
    local deadline=$(( SECONDS + 120 ))
    until timeout 1 bash -c "exec 3<>/dev/tcp/$HOST/$port" 2>/dev/null; do
        kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/daemon.log" >&2; exit 1; }
        (( SECONDS < deadline )) || { echo "the daemon did not start" >&2; exit 1; }
        sleep 0.2
    done
    local result
    result=$(timeout 600 "$WORK/connect-load" --proxy "$HOST:$port" --host api.example.test --path /bench \
        --cacert "$WORK/ca/ca.pem" --connections 1 --seconds 500 "$@")
    kill -TERM "$SERVER"
    wait "$SERVER" 2>/dev/null || true
    SERVER=""
    read -r _ requests _ _ _ _ _ errors _ handshakes _ resumed <<<"$result"
    (( errors == 0 )) || { echo "connect-load: $result" >&2; exit 1; }
    echo "$requests $handshakes $resumed $(awk '/^(summary|totals):/ { print $2; exit }' "$out")" 
}

# per_unit LABEL N1 N2 CLIENT_ARGUMENTS...: prints the row for one case.
per_unit() {
    local label=$1 n1=$2 n2=$3
    shift 3
    local -a first second
    read -ra first <<<"$(instructions --requests "$n1" "$@")"
    read -ra second <<<"$(instructions --requests "$n2" "$@")"
    (( first[0] == n1 && second[0] == n2 )) || { echo "$label: requests ${first[0]}/${second[0]}, expected $n1/$n2" >&2; exit 1; }
    printf '| %s | %d / %d | %d / %d | %d |\n' "$label" "$n1" "$n2" "${second[1]}" "${second[2]}" \
        $(( (second[3] - first[3]) / (n2 - n1) ))
}

echo "| case | requests (runs 1 / 2) | handshakes / resumed (run 2) | instructions per request |"
echo "|---|---:|---:|---:|"
for case in $CASES; do
    case $case in
        plain) per_unit plain "$KEPT1" "$KEPT2" --plain ;;
        mitm) per_unit "intercepted HTTPS, kept alive" "$KEPT1" "$KEPT2" ;;
        handshake) per_unit "new connection, full handshake" "$NEW1" "$NEW2" --requests-per-connection 1 ;;
        resumed) per_unit "new connection, resumed handshake" "$NEW1" "$NEW2" --requests-per-connection 1 --resume ;;
        *) echo "unknown case $case" >&2; exit 1 ;;
    esac
done
