#!/usr/bin/env bash
# Instructions per answer, counted by callgrind, for one WireMock root served by Orrery: a static JSON mapping,
# the same answer made by a response template (path, query, header), and a template that uses helpers (jsonPath
# on the body with a filter, now with a format, an eq block, math, upper); then the same pair as Orrery stubs
# (the `dynamic` case of scripts/bench.sh: a static JSON stub, and its Mustache template reading a path parameter,
# the path, a query parameter, a header and the method). A count does not depend on what else the machine runs,
# so the ratio between the rows holds on a busy machine too.
#
#   scripts/wiremock-template-cost.sh
#
# Environment (optional): ORRERY_BIN (default: the release build), REQUESTS (2000 per row). Needs valgrind and
# curl; the release binary is copied with its debug information stripped (valgrind cannot read Swift's DWARF 5).
# Everything listens on 127.0.0.1; the server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

ORRERY_BIN=${ORRERY_BIN:-$(scripts/build-release.sh)}
REQUESTS=${REQUESTS:-2000}

# shellcheck source=scripts/lib/callgrind-work.sh
source scripts/lib/callgrind-work.sh
mkdir -p "$work/root/mappings" "$work/stubs"
cat > "$work/root/mappings/cost.json" <<'EOF'
{"mappings": [
  {"request": {"method": "GET", "urlPath": "/static/7"},
   "response": {"status": 200, "headers": {"Content-Type": "application/json"},
     "jsonBody": {"id": "7", "name": "Ada Lovelace", "role": "admin", "agent": "curl", "active": true}}},
  {"request": {"method": "GET", "urlPath": "/templated/7"},
   "response": {"status": 200, "headers": {"Content-Type": "application/json"},
     "body": "{\"id\":\"{{request.path.[1]}}\",\"name\":\"{{request.query.name}}\",\"role\":\"admin\",\"agent\":\"{{request.headers.User-Agent}}\",\"active\":true}",
     "transformers": ["response-template"]}},
  {"request": {"method": "POST", "urlPath": "/helpers"},
   "response": {"status": 200, "headers": {"Content-Type": "application/json"},
     "body": "{\"id\":\"{{jsonPath request.body '$.items[?(@.qty > 1)].sku'}}\",\"day\":\"{{now format='yyyy-MM-dd'}}\",\"kind\":\"{{#eq request.method 'POST'}}post{{else}}other{{/eq}}\",\"total\":{{math (jsonPath request.body '$.n') '*' 3}},\"name\":\"{{upper request.query.name}}\",\"active\":true}",
     "transformers": ["response-template"]}}
]}
EOF

cat > "$work/stubs/dynamic.yaml" <<'YAML'
- request: { method: GET, path: /stub/static/7 }
  response:
    headers: { Content-Type: application/json }
    json: { id: "7", name: "user 7", path: "/stub/static/7", query: "a", agent: "wrk", method: "GET", role: "member", active: true }
- request: { method: GET, path: "/stub/templated/{id}" }
  response:
    template: true
    headers: { Content-Type: application/json }
    json: { id: "{{params.id}}", name: "user {{params.id}}", path: "{{request.path}}", query: "{{request.query.q}}", agent: "{{request.headers.user-agent}}", method: "{{request.method}}", role: "member", active: true }
YAML

valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$work/orrery" serve --port 0 --threads 1 \
    --stubs "$work/stubs" --wiremock-root "$work/root" --offline --log-level error --watch-interval 0 \
    --journal-entries 0 --ready-file "$work/orrery.ready" > "$work/orrery.log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$work/orrery.ready" ] && break; sleep 0.1; done
port=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['port'])" "$work/orrery.ready")
base="http://127.0.0.1:$port"

# One keep-alive connection sends the requests; callgrind's counters are zeroed before and dumped after each row.
count() { # label method path [body [user-agent]]
    local label=$1 method=$2 path=$3 body=${4:-} agent=${5:-curl}
    python3 - "$base" "$method" "$path" "$body" 3 "$agent" <<'PY'
import http.client, sys
base, method, path, body, n, agent = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
host, port = base[len("http://"):].split(":")
connection = http.client.HTTPConnection(host, int(port), timeout=30)
for _ in range(n):
    connection.request(method, path, body=body or None, headers={"User-Agent": agent})
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
PY
    callgrind_control -z "$pid" > /dev/null
    python3 - "$base" "$method" "$path" "$body" "$REQUESTS" "$agent" <<'PY'
import http.client, sys
base, method, path, body, n, agent = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
host, port = base[len("http://"):].split(":")
connection = http.client.HTTPConnection(host, int(port), timeout=30)
for _ in range(n):
    connection.request(method, path, body=body or None, headers={"User-Agent": agent})
    response = connection.getresponse()
    response.read()
PY
    callgrind_control -d "$label" "$pid" > /dev/null
    local dump
    dump=$(ls -t "$work"/callgrind.out.* | head -1)
    local total
    total=$(awk '/^summary:|^totals:/ {print $2; exit}' "$dump")
    echo "$label $((total / REQUESTS))"
}

static=$(count static GET "/static/7?name=Ada%20Lovelace")
templated=$(count templated GET "/templated/7?name=Ada%20Lovelace")
helpers=$(count helpers POST "/helpers?name=ada" '{"items":[{"sku":"A1","qty":2},{"sku":"B2","qty":1}],"n":"7"}')
stub_static=$(count stub-static GET "/stub/static/7?q=a" "" wrk)
stub_templated=$(count stub-templated GET "/stub/templated/7?q=a" "" wrk)
s=${static#* }
t=${templated#* }
h=${helpers#* }
echo "| answer | instructions per answer | against static |"
echo "|---|---|---|"
echo "| static mapping | $s | 1.00 |"
echo "| response template (path, query, header) | $t | $(python3 -c "print(f'{$t / $s:.2f}')") |"
echo "| response template with helpers (jsonPath filter, now, eq, math, upper) | $h | $(python3 -c "print(f'{$h / $s:.2f}')") |"
ss=${stub_static#* }
st=${stub_templated#* }
echo "| stub: static JSON | $ss | 1.00 |"
echo "| stub: Mustache template (path parameter, path, query, header, method) | $st | $(python3 -c "print(f'{$st / $ss:.2f}')") |"
