#!/bin/bash
# bench/threadstate: cost of one threadstate sample pass against the number
# of threads on the host (N idle threads of tests/workloads/threads, plus
# whatever else runs), for each source: the task iterator, the tracepoint
# state map, and /proc (stk's /proc source reads what psn reads: stat and
# syscall of every thread, so it is the psn-style baseline). Per source and
# N, medians of REPEAT runs of DURATION s at 20 Hz in the default (active
# threads) mode:
#   pass ms      wall time of the source's pass (from -v)
#   details ms   active rule and /proc details of the kept threads
#   stk CPU %    stk's user+system time / wall time
#   BPF CPU %    the source's BPF programs (kernel.bpf_stats_enabled): the
#                iterator program, or the tracepoints on every switch and syscall
#                (task_iter -T adds the sys_enter hook for the syscall time)
# Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
DURATION=${DURATION:-4}
THREADS=${THREADS:-"1000 10000"}
tmp=$(mktemp -d)
wpid=""
trap '[ -n "$wpid" ] && kill "$wpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT
sysctl -qw kernel.bpf_stats_enabled=1


# bpf_ns PID: run_time_ns summed over the programs PID holds
bpf_ns() {
    local id sum=0 t
    for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
        t=$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/.*run_time_ns \([0-9]*\).*/\1/p' | head -1)
        sum=$((sum + ${t:-0}))
    done
    echo "$sum"
}

# one_run SOURCE [OPTION]: prints "pass_ms details_ms stk_cpu_pct bpf_cpu_pct"
one_run() {
    local src=$1 err=$tmp/err
    ( TIMEFORMAT='%U %S %R'; time "$STK" threadstate --source "$src" -v -F 20 -d "$DURATION" -t 1 ${2:-} \
        >/dev/null 2>"$err" ) 2>"$tmp/time" &
    local sub=$! spid=""
    for _ in $(seq 50); do
        spid=$(pgrep -n -f "threadstate --source $src -v -F 20" 2>/dev/null) && break
        sleep 0.05
    done
    sleep 1
    local b0 b1
    b0=$(bpf_ns "$spid")
    sleep 2
    b1=$(bpf_ns "$spid")
    wait "$sub"
    local pass details cpu
    pass=$(sed -n 's/.*source \([0-9.]*\) ms.*/\1/p' "$err")
    details=$(sed -n 's/.*details \([0-9.]*\) ms.*/\1/p' "$err")
    cpu=$(tail -1 "$tmp/time" | awk '{ if ($3 > 0) printf "%.1f", ($1 + $2) / $3 * 100 }')
    echo "${pass:-n/a} ${details:-n/a} ${cpu:-n/a} $(awk -v d="$((b1 - b0))" 'BEGIN { printf "%.2f", d / 2e9 * 100 }')"
}

rows=()
for n in $THREADS; do
    "$W/threads" idle "$n" >"$tmp/ready" 2>&1 &
    wpid=$!
    for _ in $(seq 200); do grep -q ready "$tmp/ready" && break; sleep 0.05; done
    total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
    for variant in task_iter "task_iter -T" tracepoint_state proc; do
        src=${variant%% *}
        opt=${variant#"$src"}
        : >"$tmp/runs"
        for _ in $(seq "$REPEAT"); do one_run "$src" $opt >>"$tmp/runs"; done
        col() { awk -v c="$1" '{ print $c }' "$tmp/runs" | grep -v n/a | median; }
        rows+=("$(printf '%-8s %-8s %-17s %9s %11s %10s %10s' "$n" "$total" "$variant" "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)")")
    done
    kill "$wpid"
    wait "$wpid" 2>/dev/null
    wpid=""
done
printf '\n%-8s %-8s %-17s %9s %11s %10s %10s\n' "idle" "threads" "source" "pass ms" "details ms" "stk CPU %" "BPF CPU %"
printf '%s\n' "${rows[@]}"
echo "(20 Hz, default active-thread mode, medians of $REPEAT runs of ${DURATION} s; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
