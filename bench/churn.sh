#!/bin/bash
# bench/churn: what processes that come and go cost a profiler's memory.
# Each tool samples one cgroup at 999 Hz (so other processes on the host add
# nothing) while CHURN short processes run in it one after another (Debian's
# dash counting to 4,000: a few milliseconds of CPU, sampled several times
# each). The table gives the tool's resident memory growth per process
# (VmRSS after the churn minus before it, over CHURN, read while the tool
# still runs: what the exited processes left behind), its peak RSS, and for
# stk how many of the processes it compacted after their exit, and the share
# of the processes' samples whose user stack reached __libc_start_main with
# names (unwound whole and resolved after the process had gone); medians of
# REPEAT runs, for stk profile (cfi and dwarf), bpftrace's profile probe with
# user stacks, perf record -g and perf record --call-graph dwarf. Needs root
# and cgroup v2. Installs bpftrace and perf with apt if missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
CHURN=${CHURN:-2000}
tmp=$(mktemp -d)
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cg2" ] || { echo "bench/churn: needs a cgroup2 mount" >&2; exit 1; }
cgname=stk-churn-$$
cg=$cg2/$cgname
mkdir "$cg"
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir "$cg" 2>/dev/null; rm -rf "$tmp"' EXIT

bench_install bench/churn bpftrace linux-perf

churn() { # N: short processes in the cgroup, one after another
    sh -c 'echo $$ >"$1/cgroup.procs" &&
        for _ in $(seq "$2"); do sh -c '\''i=0; while [ $i -lt 4000 ]; do i=$((i+1)); done'\''; done' _ "$cg" "$1"
}

# run NAME CMD...: starts the tool, warms it up, churns, reads its memory, stops it
run() {
    local name=$1 pid before after peak; shift
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pid=$!
    for _ in $(seq 100); do grep -qs '^prog_id:' /proc/"$pid"/fdinfo/* && break; sleep 0.1; done
    sleep 1
    churn 100 # warm-up: files parsed, tables built
    sleep 2
    before=$(status_kb "$pid" VmRSS)
    churn "$CHURN"
    sleep 2.5 # its last samples read, the exits seen (stk sweeps once a second)
    after=$(status_kb "$pid" VmRSS)
    peak=$(status_kb "$pid" VmHWM)
    kill -INT "$pid"
    wait "$pid" 2>/dev/null
    echo "$(( (after - before) * 1024 / CHURN )) $peak $(whole_share "$name") $(sed -n 's/.*; \([0-9]*\) exited, compacted).*/\1/p' "$tmp/$name.err")" \
        >>"$tmp/$name.res"
}

# whole_share NAME: % of the sh processes' samples whose user stack reached __libc_start_main, named
whole_share() {
    case $1 in
        perf_*) perf script -i "$tmp/$1.data" -F comm,ip,sym 2>/dev/null ;;
        *) cat "$tmp/$1.out" ;;
    esac | python3 -c '
import re, sys
kind, text = sys.argv[1], sys.stdin.read()
n = whole = 0
if kind.startswith("stk"):  # folded: comm;frames count
    for line in text.splitlines():
        if line.startswith("sh;"):
            c = int(line.rsplit(" ", 1)[1]); n += c; whole += c * ("__libc_start_main" in line)
elif kind == "bpftrace":  # @[ustack, kstack, pid, comm]: count
    for rec in re.findall(r"@\[(.*?)\]: (\d+)", text, re.S):
        if rec[0].rstrip().endswith(", sh"):
            c = int(rec[1]); n += c; whole += c * ("__libc_start_main" in rec[0])
else:  # perf script: a comm line, then frames, blank-line separated
    for block in text.split("\n\n"):
        if block.lstrip().startswith("sh "):
            n += 1; whole += "__libc_start_main" in block
print("%.0f" % (100.0 * whole / n) if n else "n/a")' "$1"
}

BT="profile:hz:999 /cgroup == cgroupid(\"$cg\")/ { @[ustack, kstack, pid, comm] = count(); }"
declare -A cmd=(
    [stk_profile_cfi]="$STK profile -F 999 --cgroup $cg -f -v"
    [stk_profile_dwarf]="$STK profile --unwind dwarf -F 999 --cgroup $cg -f -v"
    [perf_fp]="perf record -a -e cpu-clock -F 999 -G $cgname -g -o $tmp/perf_fp.data"
    [perf_dwarf]="perf record -a -e cpu-clock -F 999 -G $cgname --call-graph dwarf -o $tmp/perf_dwarf.data"
)
# TOOLS: a subset, by name
read -r -a tools <<<"${TOOLS:-stk_profile_cfi stk_profile_dwarf bpftrace perf_fp perf_dwarf}"
for r in $(seq "$REPEAT"); do
    echo "round $r of $REPEAT" >&2
    for t in "${tools[@]}"; do
        if [ "$t" = bpftrace ]; then run bpftrace bpftrace -e "$BT"
        else read -r -a argv <<<"${cmd[$t]}"; run "$t" "${argv[@]}"; fi
    done
done

printf '%-20s %14s %12s %16s %10s\n' tool "bytes/process" "peak RSS KB" "whole stacks %" compacted
for t in "${tools[@]}"; do
    printf '%-20s %14s %12s %16s %10s\n' "$t" "$(awk '{ print $1 }' "$tmp/$t.res" | median)" \
        "$(awk '{ print $2 }' "$tmp/$t.res" | median)" "$(awk '{ print $3 }' "$tmp/$t.res" | median)" \
        "$(awk '{ print ($4 == "" ? "-" : $4) }' "$tmp/$t.res" | median)"
done
echo "($CHURN processes of a few ms each per run after 100 to warm up, 999 Hz, medians of $REPEAT runs;"
echo " bytes/process: (VmRSS after - before) / processes, read while the tool still runs)"
