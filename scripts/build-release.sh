#!/usr/bin/env bash
# Builds the release orrery binary and prints its path. The one place that says how a release is linked, for
# scripts/run.sh, scripts/bench.sh and the Dockerfile.
#
# The Swift runtime and Foundation are linked statically: a process then maps (and the kernel counts as resident)
# only the pages of the libraries it uses instead of every shared library's, and calls into the runtime (retain,
# release) are direct rather than through the PLT. Where the toolchain has lld, its packed relative relocations
# (RELR) shrink the relocation table the loader reads at start-up from 1.8 MB to a few KB.
set -euo pipefail
cd "$(dirname "$0")/.."

# Exclusive-access checks stay in debug builds, where the test suite runs them; a release build leaves them out
# (about 3,000 instructions of every proxied request went to them).
flags=(-c release --product orrery --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked)
if [[ -x "$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld" ]]; then
    flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
fi
# Foundation's static library warns about its own use of mktemp at every link; nothing to act on here.
swift build "${flags[@]}" "$@" 2> >(grep -v "the use of \`mktemp' is dangerous" >&2) >&2
echo "$(swift build "${flags[@]}" "$@" --show-bin-path)/orrery"
