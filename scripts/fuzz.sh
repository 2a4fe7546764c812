#!/usr/bin/env bash
# Builds a libFuzzer target (fuzz/targets/TARGET.swift) with the OrreryCore files it exercises, and runs it for SECONDS
# seconds on its seed corpus (fuzz/corpus/TARGET) with the HTTP dictionary. Not part of CI.
#
#   scripts/fuzz.sh request 600        # the request parser and the connection state machine
#   scripts/fuzz.sh response 60        # the response parser the upstream client uses
#   scripts/fuzz.sh request 0 .build/fuzz/artifacts/request/crash-...   # replay one input
#
# Inputs libFuzzer finds go to .build/fuzz/corpus/TARGET, crashes to .build/fuzz/artifacts/TARGET; further
# arguments go to libFuzzer. Needs the Swift toolchain's libFuzzer and AddressSanitizer runtimes (Linux).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer arguments]"
target="${1:?$usage}"
seconds="${2:?$usage}"
shift 2
[ -f "fuzz/targets/$target.swift" ] || { echo "no fuzz target fuzz/targets/$target.swift" >&2; exit 2; }

# The domain files the targets use: the HTTP/1 framing and what it builds on (not Yams).
sources=(
    Sources/OrreryCore/HTTP1/*.swift
    Sources/OrreryCore/HTTP/*.swift
    Sources/OrreryCore/Response/ErrorResponse.swift
    Sources/OrreryCore/Response/Payload.swift
    Sources/OrreryCore/Status/HTTPStatusCode.swift
    Sources/OrreryCore/JSON/*.swift
    Sources/OrreryCore/Source/SourceNode.swift
)
out=.build/fuzz
mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
echo "Building $out/$target ..." >&2
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name OrreryFuzz \
    "fuzz/targets/$target.swift" "${sources[@]}" -o "$out/$target"

# libFuzzer reports crashes itself; Swift's own backtracer would hold the process up.
export SWIFT_BACKTRACE=enable=no
if [ "$#" -gt 0 ] && [ -f "$1" ]; then
    # Replaying inputs given as files.
    exec "$out/$target" "$@"
fi
# New inputs are written to the first corpus folder; the committed seeds are only read.
exec "$out/$target" -max_total_time="$seconds" -max_len=4096 -dict=fuzz/http1.dict -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$target/" "$@" "$out/corpus/$target" "fuzz/corpus/$target"
