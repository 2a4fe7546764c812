#!/usr/bin/env bash
# Builds the package and its tests with a sanitizer and runs the whole test suite under it, in a scratch path of its
# own (.build-asan or .build-tsan), so the normal build is left alone. Not part of CI: run it after changing code
# that threads, buffers or C interop touch.
#
#   scripts/sanitize.sh address            # AddressSanitizer (heap and stack overflows, use after free)
#   scripts/sanitize.sh thread             # ThreadSanitizer (data races)
#   scripts/sanitize.sh thread --filter Robustness   # further arguments go to `swift test`
#
# The orrery binaries the end-to-end tests start are built with the same sanitizer. Every process writes its reports
# to .build-SAN/reports/SAN.PID (the test runner's and each daemon's), and the script ends with a count of them and
# the frames of Orrery's own code they name. Suppressions (scripts/sanitizers/SAN.supp) say why each is there.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/sanitize.sh address|thread [swift test arguments]"
sanitizer="${1:?$usage}"
shift
case "$sanitizer" in
address) short=asan ;;
thread) short=tsan ;;
*) echo "$usage" >&2; exit 2 ;;
esac
scratch=".build-$short"
reports="$scratch/reports"

scripts/install-dependencies.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
export ORRERY_BINARY="$(swift build --sanitize="$sanitizer" --scratch-path "$scratch" --show-bin-path)/orrery"

rm -rf "$reports"
mkdir -p "$reports"
suppressions="$PWD/scripts/sanitizers/$short.supp"
case "$sanitizer" in
address)
    # Leak checking is off: the Swift runtime and Foundation keep caches (metadata, conformances, the default
    # run loop) for the life of the process, and a test runner that exits with them reports each as a leak.
    export ASAN_OPTIONS="log_path=$PWD/$reports/asan:detect_leaks=0:abort_on_error=0:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    ;;
thread)
    # halt_on_error=0: a race is reported and the run goes on, so that one run finds them all.
    export TSAN_OPTIONS="log_path=$PWD/$reports/tsan:halt_on_error=0:second_deadlock_stack=1:suppressions=$suppressions${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    ;;
esac
# The Swift backtracer would stop a crashing process to print; the sanitizer has already said what happened.
export SWIFT_BACKTRACE=enable=no

status=0
swift test --skip-build --no-parallel --sanitize="$sanitizer" --scratch-path "$scratch" "$@" || status=$?

# A summary: how many reports, and which of Orrery's functions they name first.
shopt -s nullglob
files=("$reports"/*)
count=0
for file in ${files[@]+"${files[@]}"}; do
    count=$((count + $(grep -c -E '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)' "$file" || true)))
done
echo "== $sanitizer: swift test exited $status; $count report(s) in ${#files[@]} file(s) under $reports"
if [ "$count" -gt 0 ]; then
    echo "== Orrery frames named in the reports (count, frame):"
    cat "${files[@]}" | grep -E '^ +#[0-9]+ ' | grep -oE 'in \$s[0-9]*Orrery[A-Za-z0-9_]+' | sort | uniq -c | sort -rn | head -20 || true
fi
[ "$status" -eq 0 ] && [ "$count" -eq 0 ]
