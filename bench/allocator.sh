#!/bin/bash
# bench/allocator: stk as built, with mimalloc from Debian's source
# (ci/build-mimalloc.sh), against the same stk linked with musl's own allocator
# (make $BUILD/bench/stk-musl-malloc), which hands freed groups back to the kernel.
# Both binaries record the same context-switch-heavy job (the offcpu_pingpong
# workload: every pass blocks one thread and wakes another) with
# `offcputime -o run.parquet` and a whole-host `profile -F 999 -o run.parquet`,
# alternated REPEAT times; medians of stk's user and system CPU, minor page
# faults and peak RSS (GNU time), and each binary's stripped size. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-5}
SECS=${SECS:-6}
make -C "$root" --no-print-directory BUILD="$BUILD" all workloads "$BUILD/bench/stk-musl-malloc" >/dev/null || exit 1
bench_install bench/allocator time
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

declare -A BIN CMD
BIN[musl's malloc]=$BUILD/bench/stk-musl-malloc
BIN[mimalloc (stk)]=$STK
CMD[offcputime -o]="offcputime -o $tmp/run.parquet $SECS"
CMD[profile -F 999 -o]="profile -F 999 -o $tmp/run.parquet $SECS"
bins=("musl's malloc" "mimalloc (stk)")
cmds=("offcputime -o" "profile -F 999 -o")

declare -A U S F R
for rep in $(seq "$REPEAT"); do
    for c in "${cmds[@]}"; do
        for b in "${bins[@]}"; do
            "$W/offcpu_pingpong" 100000000 >/dev/null & job=$!
            /usr/bin/time -o "$tmp/time" -f "%U %S %R %M" ${BIN[$b]} ${CMD[$c]} >/dev/null 2>&1
            kill $job 2>/dev/null; wait $job 2>/dev/null
            read -r u s f r <"$tmp/time"
            U[$b/$c]+="$u " S[$b/$c]+="$s " F[$b/$c]+="$f " R[$b/$c]+="$r "
        done
    done
done

med() { printf '%s\n' $1 | median; }
echo
echo "bench/allocator: medians of $REPEAT alternated ${SECS} s captures of offcpu_pingpong (2 CPUs)"
printf '| %-20s | %-18s | %8s | %8s | %12s | %9s | %10s |\n' allocator capture "user s" "sys s" "minor faults" "peak RSS" "binary"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ---------------------- -------------------- ---------- ---------- -------------- ----------- ------------
for c in "${cmds[@]}"; do
    for b in "${bins[@]}"; do
        printf '| %-20s | %-18s | %8s | %8s | %12s | %6s MB | %7s KB |\n' "$b" "$c" "$(med "${U[$b/$c]}")" \
            "$(med "${S[$b/$c]}")" "$(med "${F[$b/$c]}")" "$(( $(med "${R[$b/$c]}") / 1024 ))" \
            "$(( $(stat -c %s "${BIN[$b]}") / 1024 ))"
    done
done
