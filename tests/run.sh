#!/bin/bash
# The test runner `make check` calls. Runs the unit tests (plain and under
# ASan+UBSan), each libFuzzer target over its corpus, then every tests/integration/*.sh. Each test prints one
# "PASS name", "FAIL name: why" or "SKIP name: why" line (a check this host cannot
# decide); this script counts them and closes with "N passed, N failed" (", N skipped"
# for SKIP lines and root-only suites that could not run: a skip never counts as a pass).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=${BUILD:-$root/build}
export STK=${STK:-$BUILD/stk}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
skipped=0

run_suite() { # LABEL CMD...  (its PASS/FAIL lines go to $log; its seconds printed after them)
    local out rc start=$SECONDS
    out=$(mktemp)
    echo "== $1"
    "${@:2}" >"$out" 2>&1
    rc=$?
    # A suite that dies (crash, sanitizer abort) without a FAIL line of its own still fails.
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
        echo "FAIL $1: exited with status $rc; last output: $(tail -3 "$out" | tr '\n' ' ')" >>"$out"
    fi
    grep -E '^(FAIL|SKIP|  )' "$out"
    echo "   ($1: $((SECONDS - start)) s)"
    cat "$out" >>"$log"
    rm -f "$out"
}

run_suite "unit tests (musl static)" "$BUILD/tests/unit" unit
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    run_suite "unit tests (ASan+UBSan)" "$BUILD/tests/unit-asan" unit-asan
# Each libFuzzer target over its seed corpus (make fuzz fuzzes them for longer).
run_suite "fuzz corpora" bash "$root/tests/fuzz/run.sh" regress
for t in "$root"/tests/integration/*.sh; do
    name=$(basename "$t" .sh)
    if grep -q '^# needs: root' "$t" && [ "$(id -u)" -ne 0 ]; then
        echo "== $name: SKIPPED (needs root; CI runs it as root)"
        skipped=$((skipped + 1))
        continue
    fi
    run_suite "$name" bash "$t"
done

# The kernel matrix (tests/vm): Debian kernels under qemu, BTF visible and hidden.
if [ "$(id -u)" -ne 0 ]; then
    echo "== vm kernel matrix: SKIPPED (needs root to fetch kernels; CI runs it as root)"
    skipped=$((skipped + 1))
else
    # Both matrices side by side, their boots sharing one slot per host core
    # (each qemu, TCG with one thread, keeps a core busy): the cores stay busy
    # until the last boot of either, so the two take about half their sum, not
    # the arm64 one's time. Each writes its own log and output, joined in order
    # when both end.
    # The arm64 one, with the arm64 stk make check cross-builds into
    # $BUILD/arm64: all four kernels, BTF visible and hidden (an arm64 boot
    # with every case takes 2-5 minutes under TCG; STK_VM_ARM64_KERNELS="bullseye
    # sid" limits a run). Boot time limits are raised for the shared cores.
    vm=$(mktemp -d)
    mkdir "$vm/slots"
    export STK_VM_SLOTS=$vm/slots
    log=$vm/x86.log STK_VM_TIMEOUT=${STK_VM_TIMEOUT:-500} \
        run_suite "vm kernel matrix" bash "$root/tests/vm/run.sh" >"$vm/x86.out" &
    if [ "$(uname -m)" = x86_64 ]; then
        log=$vm/arm64.log ARCH=arm64 BUILD=$BUILD/arm64 STK=$BUILD/arm64/stk \
            STK_VM_KERNELS=${STK_VM_ARM64_KERNELS:-} STK_VM_TIMEOUT=${STK_VM_TIMEOUT:-800} \
            run_suite "vm kernel matrix (arm64)" bash "$root/tests/vm/run.sh" >"$vm/arm64.out" &
    fi
    wait
    for m in x86 arm64; do
        [ -f "$vm/$m.out" ] && cat "$vm/$m.out"
        [ -f "$vm/$m.log" ] && cat "$vm/$m.log" >>"$log"
    done
    rm -rf "$vm"
    grep '^NOTE ' "$log" || true
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$((skipped + $(grep -c '^SKIP ' "$log")))
echo
# Kept for after the fact: the whole log of the last run.
cp "$log" "$BUILD/test-results.log" 2>/dev/null
if grep -q '^SKIP ' "$log"; then
    echo "skipped:"
    grep '^SKIP ' "$log"
fi
if [ "$failed" -gt 0 ]; then
    echo "failures:"
    grep '^FAIL ' "$log"
fi
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
