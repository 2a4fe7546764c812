#!/usr/bin/env bash
# Runs the whole test suite: unit tests, live tests against the server on loopback, and end-to-end tests of the
# orrery binary. Installs the system packages it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh --with-test-tools
# The run's own temporary directory, removed when it ends. The Swift driver leaves an empty TemporaryDirectory.XXXXXX
# in $TMPDIR for each job it hands over by exec, several per `swift build` and `swift test`
# (swiftlang/swift-driver#2049): about fourteen a run went into /tmp and stayed there.
run_tmp=$(mktemp -d)
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"
# URLSession (libcurl) obeys proxy variables even for 127.0.0.1; the tests only ever talk to loopback.
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
swift build --build-tests
export ORRERY_BINARY="$(swift build --show-bin-path)/orrery"
# One test at a time: several suites wait on sockets and child processes, which would otherwise hold the few threads
# Swift's concurrency runs tests on (two on a two-core machine) and stall the rest into time-outs.
swift test --skip-build --no-parallel "$@"

# The example app's tests, written with OrreryTesting against the binary built above: in the Swift Testing pass one
# daemon serves every test, each in a session of its own, in parallel. It depends on the root package only, so a
# clean clone builds it from scratch. Skipped when arguments (such as --filter) pick tests of the main suite.
if [ "$#" -eq 0 ]; then
    (cd Examples/WeatherApp && swift test --parallel)
    # The DocC documentation of OrreryClient and OrreryTesting, failing on any warning (about 25 s once built).
    scripts/docs.sh
    # swift-format's findings on the Swift lines changed since the baseline commit named in the script (a few seconds).
    scripts/format.sh --lint
fi
