#!/usr/bin/env bash
# Makes the dashboard's screenshots in docs/ (dashboard-traffic.png, dashboard-stubs.png, dashboard-environments.png)
# the way docs/operations.md shows them: the example stubs and host map in a live daemon, a few requests, and headless
# Chromium through chromedriver's WebDriver screenshot endpoint (the "screenshots" test of DashboardBrowserTests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh --with-test-tools
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
swift build --build-tests
ORRERY_SCREENSHOTS="$PWD/docs" swift test --skip-build --filter "DashboardBrowserTests/screenshots"
ls -l docs/dashboard-*.png
