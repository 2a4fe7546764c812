#!/usr/bin/env bash
# Starts Orrery on the example stubs and config in this repository (http://127.0.0.1:8080 unless told otherwise),
# installing the system packages it needs first. Extra arguments go to 'orrery serve'.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
orrery="$(scripts/build-release.sh)"
exec "$orrery" serve --stubs stubs --config config "$@"
