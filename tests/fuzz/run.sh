#!/bin/bash
# The libFuzzer targets (build/fuzz/fuzz_NAME, from tests/fuzz/fuzz_NAME.c).
#   run.sh regress          each target over its committed corpus: "PASS fuzz/NAME" or
#                           "FAIL fuzz/NAME: ..." (make check; seconds)
#   run.sh fuzz SECONDS     each target fuzzed for SECONDS (make fuzz); new inputs go to
#                           build/fuzz/corpus/NAME, crashes to build/fuzz/artifacts/
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$root/build}
mode=${1:-regress}
seconds=${2:-60}
status=0
targets=$(ls "$root"/tests/fuzz/fuzz_*.c 2>/dev/null | sed 's|.*/fuzz_||; s|\.c$||')
[ -n "$targets" ] || { echo "FAIL fuzz/targets: none under tests/fuzz"; exit 1; }
mkdir -p "$BUILD/fuzz/artifacts"
for t in $targets; do
    bin=$BUILD/fuzz/fuzz_$t seeds=$root/tests/fuzz/corpus/$t log=$BUILD/fuzz/$t.log
    if [ ! -x "$bin" ]; then echo "FAIL fuzz/$t: $bin not built (make fuzz-build)"; status=1; continue; fi
    if [ -z "$(ls -A "$seeds" 2>/dev/null)" ]; then echo "FAIL fuzz/$t: no seed corpus in $seeds"; status=1; continue; fi
    common=(-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 "-artifact_prefix=$BUILD/fuzz/artifacts/$t-")
    if [ "$mode" = fuzz ]; then
        mkdir -p "$BUILD/fuzz/corpus/$t"
        echo "== fuzz/$t for ${seconds}s"
        "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 \
            "$BUILD/fuzz/corpus/$t" "$seeds" >"$log" 2>&1
    else
        "$bin" "${common[@]}" -runs=0 "$seeds" >"$log" 2>&1
    fi
    rc=$?
    n=$(ls "$seeds" | wc -l)
    if [ "$rc" -eq 0 ]; then
        echo "PASS fuzz/$t ($([ "$mode" = fuzz ] && grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | sed 's/$/ runs, /')$n seeds)"
    else
        echo "FAIL fuzz/$t: exit $rc; $(grep -m1 -E 'ERROR: |SUMMARY: ' "$log") (log: $log)"
        status=1
    fi
done
exit $status
