#!/usr/bin/env bash
# Builds a libFuzzer target (fuzz/targets/TARGET.swift) and runs it for SECONDS seconds on its seed corpus
# (fuzz/corpus/TARGET), with the target's dictionary when it has one. Not part of CI.
#
#   scripts/fuzz.sh request 600        # the request parser and the connection state machine
#   scripts/fuzz.sh response 60        # the response parser the upstream client uses
#   scripts/fuzz.sh websocket 600      # the WebSocket frame parser
#   scripts/fuzz.sh stubs 600          # stub files, YAML and JSON, through the loader's parser and StubDecoder
#   scripts/fuzz.sh all 600            # every target, one after another, SECONDS each; a summary at the end
#   scripts/fuzz.sh build [TARGET...]  # build only (every target when none is named)
#   scripts/fuzz.sh summary [TARGET...]   # the summary of the last runs, from their logs
#   scripts/fuzz.sh request 0 .build/fuzz/artifacts/request/crash-...   # replay one input
#
# Inputs libFuzzer finds go to .build/fuzz/corpus/TARGET, crashes to .build/fuzz/artifacts/TARGET, each run's log
# to .build/fuzz/logs/TARGET.log; further arguments go to libFuzzer. Needs the Swift toolchain's libFuzzer and
# AddressSanitizer runtimes (Linux).
#
# Two kinds of target:
# - request and response are built into one module with the few HTTP/1 files they exercise (quick to build);
# - the others use the whole of OrreryCore, built once into .build/fuzz/core (instrumented, with -enable-testing so
#   that the targets can `@testable import` it), and Yams with it: libyaml's C files compiled with the same
#   sanitizers, and Yams' Swift sources from .build/checkouts (`swift package resolve` fetches them).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer arguments] | scripts/fuzz.sh build|summary [TARGET...]"
out=.build/fuzz
# Targets built from a handful of files, without Yams, and the files each needs.
http1_sources=(
    Sources/OrreryCore/HTTP1/*.swift
    Sources/OrreryCore/HTTP/*.swift
    Sources/OrreryCore/Response/ErrorResponse.swift
    Sources/OrreryCore/Response/Payload.swift
    Sources/OrreryCore/Status/HTTPStatus.swift
    Sources/OrreryCore/Status/HTTPStatusCode.swift
    Sources/OrreryCore/JSON/*.swift
    Sources/OrreryCore/Source/SourceNode.swift
)
# The WebSocket framing alone.
websocket_sources=(
    Sources/OrreryCore/WebSocket/WebSocketOpcode.swift
    Sources/OrreryCore/WebSocket/WebSocketCloseCode.swift
    Sources/OrreryCore/WebSocket/WebSocketLimits.swift
    Sources/OrreryCore/WebSocket/WebSocketMessage.swift
    Sources/OrreryCore/WebSocket/WebSocketFrameWriter.swift
    Sources/OrreryCore/WebSocket/WebSocketParser.swift
)
is_http1_target() { [ "$1" = request ] || [ "$1" = response ]; }
all_targets() { for file in fuzz/targets/*.swift; do basename "$file" .swift; done; }

swiftc_fuzz=(swiftc -sanitize=fuzzer,address -parse-as-library -O -g)

# True when $1 is missing or older than any of the other files.
is_stale() {
    local product=$1
    shift
    [ -f "$product" ] || return 0
    local file
    for file in "$@"; do [ "$file" -nt "$product" ] && return 0; done
    return 1
}

# Yams (libyaml and its Swift layer) as a module of its own, as the package builds it.
build_yams() {
    local yams=.build/checkouts/Yams/Sources
    if [ ! -d "$yams/Yams" ]; then
        echo "Yams' sources are not in .build/checkouts; fetching the package's dependencies ..." >&2
        swift package resolve
    fi
    local dir=$out/yams
    mkdir -p "$dir"
    local c_sources=("$yams"/CYaml/src/*.c) swift_sources=("$yams"/Yams/*.swift)
    is_stale "$dir/Yams.o" "${c_sources[@]}" "${swift_sources[@]}" "$0" || return 0
    echo "Building Yams into $dir ..." >&2
    local clang
    clang="$(dirname "$(command -v swiftc)")/clang"
    local c_file
    for c_file in "${c_sources[@]}"; do
        "$clang" -fsanitize=fuzzer-no-link,address -O1 -g -fPIC -DYAML_DECLARE_STATIC -I "$yams/CYaml/include" \
            -c "$c_file" -o "$dir/cyaml-$(basename "$c_file" .c).o"
    done
    # SWIFT_PACKAGE: Yams imports its C module only when built as a package, as it is here.
    "${swiftc_fuzz[@]}" -module-name Yams -wmo -D SWIFT_PACKAGE -Xcc -DYAML_DECLARE_STATIC \
        -Xcc -fmodule-map-file="$yams/CYaml/include/module.modulemap" -Xcc -I -Xcc "$yams/CYaml/include" \
        -emit-module -emit-module-path "$dir/Yams.swiftmodule" -c "${swift_sources[@]}" -o "$dir/Yams.o"
}

# All of OrreryCore as one module, instrumented; the targets import it with @testable.
build_core() {
    build_yams
    local dir=$out/core
    mkdir -p "$dir"
    local sources
    mapfile -t sources < <(find Sources/OrreryCore -name '*.swift' | sort)
    is_stale "$dir/OrreryCore.o" "${sources[@]}" "$out/yams/Yams.o" || return 0
    echo "Building OrreryCore into $dir ..." >&2
    "${swiftc_fuzz[@]}" -module-name OrreryCore -package-name orrery -enable-testing -wmo -swift-version 6 \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
        -I "$out/yams" -Xcc -fmodule-map-file=.build/checkouts/Yams/Sources/CYaml/include/module.modulemap \
        -Xcc -I -Xcc .build/checkouts/Yams/Sources/CYaml/include \
        -emit-module -emit-module-path "$dir/OrreryCore.swiftmodule" -c "${sources[@]}" -o "$dir/OrreryCore.o"
}

build_target() {
    local target=$1
    [ -f "fuzz/targets/$target.swift" ] || { echo "no fuzz target fuzz/targets/$target.swift" >&2; exit 2; }
    mkdir -p "$out/corpus/$target" "$out/artifacts/$target" "$out/logs"
    if [ "$target" = websocket ]; then
        is_stale "$out/$target" "fuzz/targets/$target.swift" "${websocket_sources[@]}" || return 0
        echo "Building $out/$target ..." >&2
        "${swiftc_fuzz[@]}" -module-name OrreryFuzz "fuzz/targets/$target.swift" "${websocket_sources[@]}" -o "$out/$target"
        return 0
    fi
    if is_http1_target "$target"; then
        is_stale "$out/$target" "fuzz/targets/$target.swift" "${http1_sources[@]}" || return 0
        echo "Building $out/$target ..." >&2
        # -package-name: the HTTP/1 files share helpers at `package` access with the rest of the package.
        "${swiftc_fuzz[@]}" -module-name OrreryFuzz -package-name orrery "fuzz/targets/$target.swift" \
            "${http1_sources[@]}" -o "$out/$target"
        return 0
    fi
    build_core
    local support=(fuzz/support/*.swift)
    is_stale "$out/$target" "fuzz/targets/$target.swift" "${support[@]}" "$out/core/OrreryCore.o" || return 0
    echo "Building $out/$target ..." >&2
    "${swiftc_fuzz[@]}" -module-name "Fuzz_$target" -package-name orrery -I "$out/core" -I "$out/yams" \
        -Xcc -fmodule-map-file=.build/checkouts/Yams/Sources/CYaml/include/module.modulemap \
        -Xcc -I -Xcc .build/checkouts/Yams/Sources/CYaml/include \
        "fuzz/targets/$target.swift" "${support[@]}" "$out/core/OrreryCore.o" "$out/yams/Yams.o" "$out"/yams/cyaml-*.o \
        -o "$out/$target"
}

# Runs one target; its output is kept in the log as well.
run_target() {
    local target=$1 seconds=$2
    shift 2
    local dictionary=()
    if [ -f "fuzz/$target.dict" ]; then
        dictionary=(-dict="fuzz/$target.dict")
    elif is_http1_target "$target"; then
        dictionary=(-dict=fuzz/http1.dict)
    fi
    local seeds=()
    [ -d "fuzz/corpus/$target" ] && seeds=("fuzz/corpus/$target")
    # New inputs are written to the first corpus folder; the committed seeds are only read.
    "$out/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -print_final_stats=1 \
        ${dictionary[@]+"${dictionary[@]}"} -artifact_prefix="$out/artifacts/$target/" "$@" \
        "$out/corpus/$target" ${seeds[@]+"${seeds[@]}"} 2>&1 | tee "$out/logs/$target.log"
}

# One line per target from libFuzzer's final statistics and its last status line.
summarize() {
    printf '%-10s %12s %10s %8s %6s %s\n' target executions exec/s coverage corpus result
    local target log
    for target in "$@"; do
        log=$out/logs/$target.log
        [ -f "$log" ] || continue
        awk -v target="$target" '
            /stat::number_of_executed_units:/ { runs = $2 }
            /stat::average_exec_per_sec:/ { speed = $2 }
            /^#[0-9]+.*cov: / { for (i = 1; i <= NF; i++) { if ($i == "cov:") cov = $(i + 1); if ($i == "corp:") corp = $(i + 1) } }
            /ERROR: libFuzzer|ERROR: AddressSanitizer|Fatal error|deadly signal|Test unit written/ { failed = 1 }
            END { printf "%-10s %12s %10s %8s %6s %s\n", target, runs, speed, cov, corp, (failed ? "FOUND A FAILURE (see " FILENAME ")" : "ok") }
        ' "$log"
    done
}

command="${1:?$usage}"
export SWIFT_BACKTRACE=enable=no  # libFuzzer reports crashes itself; Swift's backtracer would hold the process up.
case "$command" in
build)
    shift
    targets=("$@")
    [ "${#targets[@]}" -gt 0 ] || mapfile -t targets < <(all_targets)
    for target in "${targets[@]}"; do build_target "$target"; done
    ;;
summary)
    # The table `all` ends with, from the logs of the last runs.
    shift
    targets=("$@")
    [ "${#targets[@]}" -gt 0 ] || mapfile -t targets < <(all_targets)
    summarize "${targets[@]}"
    ;;
all)
    seconds="${2:?$usage}"
    shift 2
    mapfile -t targets < <(all_targets)
    for target in "${targets[@]}"; do build_target "$target"; done
    for target in "${targets[@]}"; do
        echo "=== $target: $seconds s" >&2
        run_target "$target" "$seconds" "$@" || true
    done
    summarize "${targets[@]}"
    ;;
*)
    target=$command
    seconds="${2:?$usage}"
    shift 2
    build_target "$target"
    if [ "$#" -gt 0 ] && [ -f "$1" ]; then
        # Replaying inputs given as files.
        exec "$out/$target" "$@"
    fi
    run_target "$target" "$seconds" "$@"
    ;;
esac
