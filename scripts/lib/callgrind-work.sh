# Sourced by the scripts that count instructions with callgrind (scripts/http2-cost.sh,
# scripts/wiremock-template-cost.sh): a scratch folder `$work` removed on exit, with the daemon `$pid` stopped and,
# when KEEP_DUMPS names a folder, callgrind's dumps copied there first; and `$work/orrery`, a copy of ORRERY_BIN
# without its debug information (valgrind cannot read the DWARF 5 that Swift writes).
work=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -n "${KEEP_DUMPS:-}" ]; then cp "$work"/callgrind.out.* "$KEEP_DUMPS"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cp "$ORRERY_BIN" "$work/orrery"
strip --strip-debug "$work/orrery"
