#!/usr/bin/env bash
# Builds the DocC documentation of the libraries an app's tests use, OrreryClient and OrreryTesting, through
# swift-docc-plugin. A warning (a broken symbol link, an undocumented parameter) fails the build, so the test command
# can run this and keep the documentation whole.
#
#   scripts/docs.sh              archives in .build/plugins/Swift-DocC/outputs/ (open them in Xcode)
#   scripts/docs.sh --static DIR one website per library under DIR/OrreryClient and DIR/OrreryTesting, for static
#                                hosting (serve DIR; the pages are at /OrreryClient/documentation/orreryclient/, and so on)
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(OrreryClient OrreryTesting)

if [[ ${1:-} == --static ]]; then
    out=${2:?"usage: scripts/docs.sh [--static DIR]"}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    for target in "${targets[@]}"; do
        swift package --allow-writing-to-directory "$out" generate-documentation --target "$target" \
            --warnings-as-errors --disable-indexing --transform-for-static-hosting \
            --hosting-base-path "$target" --output-path "$out/$target"
    done
    echo "Documentation websites in $out: ${targets[*]}"
else
    args=()
    for target in "${targets[@]}"; do args+=(--target "$target"); done
    swift package generate-documentation "${args[@]}" --warnings-as-errors
fi
