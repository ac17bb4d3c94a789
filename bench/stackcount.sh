#!/bin/bash
# bench/stackcount: stk stackcount against Debian's bpftrace counting the same
# stacks (@[kstack, ustack] = count()) and perf's counting of a tracepoint, on
# tests/workloads/readloop (ITER iterations of read(2) + malloc + three small
# functions + a USDT probe), in one run. Prints a table:
#   - per-event BPF cost (kernel.bpf_stats_enabled: run_time_ns / run_cnt of
#     each tool's program) for a tracepoint, a uprobe and a USDT probe, and
#     for raw_syscalls:sys_enter with raw_tp and through perf;
#   - the read loop's ops/s alone and under each tracer (ratio);
#   - attach time for a ~200-function user wildcard (uprobe.multi, one uprobe
#     each, bpftrace);
#   - kernel functions (vfs_read): measured only where the kernel has fentry
#     or kprobes; on a host without them the table says why.
# Medians of REPEAT runs. Needs root. Installs bpftrace and perf with apt if missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-5}
ITER=${ITER:-200000}
WILDCARD=${WILDCARD:-c:s*}
tmp=$(mktemp -d)
trap 'kill -INT $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT

bench_install bench/stackcount bpftrace linux-perf

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# ns per run of the BPF program held by process PID whose name matches NAME_REGEX (through its fdinfo)
prog_cost() { # PID NAME_REGEX
    local id
    for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
        bpftool prog show id "$id" 2>/dev/null | re="$2" awk '
            NR == 1 && $0 ~ ENVIRON["re"] { for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) }
                                 if (c > 0) printf "%.0f\n", t / c }'
    done
}
# PIDs of PID and its descendants (bpftrace and perf run under unshare/sh)
tree() { local p=$1; echo "$p"; for c in $(pgrep -P "$p"); do tree "$c"; done; }
tree_cost() { local p; for p in $(tree "$1"); do prog_cost "$p" "$2"; done | head -1; }

# readloop waiting for GO; sets WPID
start_workload() {
    GO=$tmp/go
    rm -f "$GO"
    "$W/readloop" "$ITER" "$GO" >"$tmp/wl.out" 2>&1 &
    WPID=$!
    for _ in $(seq 100); do grep -q '^ready' "$tmp/wl.out" && return; sleep 0.05; done
}
# runs the loop, prints its ops/s
run_loop() {
    touch "$GO"
    for _ in $(seq 1200); do grep -q '^done' "$tmp/wl.out" && break; sleep 0.05; done
    awk -v n="$ITER" '/^done/ { printf "%.0f\n", n / ($6 / 1e9) }' "$tmp/wl.out"
    kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
}
# wait until PID (or a descendant) holds a BPF program (attached), at most 20 s; perf holds
# plain perf events instead: give it a second and check it is still running
wait_attached() {
    local p
    sleep 0.2
    for p in $(tree "$1"); do
        if [[ "$(tr '\0' ' ' < /proc/"$p"/cmdline 2>/dev/null)" == *"perf stat"* ]]; then
            sleep 1.5; kill -0 "$1" 2>/dev/null; return
        fi
    done
    for _ in $(seq 200); do
        for p in $(tree "$1"); do
            if grep -qs '^prog_id:' /proc/"$p"/fdinfo/* || grep -qs 'ATTACHED\|^Attaching' "$tmp/err"; then
                sleep 0.5; return 0
            fi
        done
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

sysctl -qw kernel.bpf_stats_enabled=1
declare -A cost ops
alone=()
for _ in $(seq "$REPEAT"); do start_workload; alone+=("$(run_loop)"); done
ops[alone]=$(printf '%s\n' "${alone[@]}" | median)

# measure LABEL PROG_REGEX CMD... (@PID@ in CMD is the workload's PID)
measure() {
    local label=$1 re=$2 c=() o=() args a; shift 2
    for _ in $(seq "$REPEAT"); do
        start_workload
        args=()
        for a in "$@"; do args+=("${a//@PID@/$WPID}"); done
        "${args[@]}" >"$tmp/out" 2>"$tmp/err" & local tp=$!
        if ! wait_attached $tp; then
            echo "$label did not attach: $(grep -v '^$' "$tmp/err" "$tmp/out" | head -2 | tr '\n' ' ')" >&2
            kill -9 $tp 2>/dev/null; wait $tp 2>/dev/null; kill "$WPID"; wait "$WPID" 2>/dev/null
            continue
        fi
        o+=("$(run_loop)")
        [ -n "$re" ] && c+=("$(tree_cost $tp "$re")")
        for p in $(tree $tp); do kill -INT "$p" 2>/dev/null; done
        wait $tp 2>/dev/null
    done
    cost[$label]=$(printf '%s\n' "${c[@]}" | grep . | median)
    ops[$label]=$(printf '%s\n' "${o[@]}" | grep . | median)
}
bt() { # bpftrace PROGRAM, with tracefs mounted privately (this host has none mounted)
    unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$1'"
}
perf_count() { # perf stat -e EVENT -p PID, counting only
    unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec perf stat -e $1 -p $2"
}
RL=$W/readloop
measure "stk tracepoint" 'stk_sc_tracepoi' "$STK" stackcount -p @PID@ t:syscalls:sys_enter_read
measure "bpftrace tracepoint" 'sys_enter_read' bt 'tracepoint:syscalls:sys_enter_read /pid == @PID@/ { @[kstack, ustack] = count(); }'
measure "perf stat -e tracepoint" '' perf_count syscalls:sys_enter_read @PID@
# A real tracepoint (every syscall of the loop): raw_tp against the same through perf.
measure "stk raw_tp sys_enter" 'stk_sc_raw_tp' "$STK" stackcount -p @PID@ t:raw_syscalls:sys_enter
measure "stk tracepoint sys_enter" 'stk_sc_tracepoi' "$STK" stackcount -p @PID@ --mechanism tracepoint t:raw_syscalls:sys_enter
measure "bpftrace tracepoint sys_enter" 'sys_enter' bt 'tracepoint:raw_syscalls:sys_enter /pid == @PID@/ { @[kstack, ustack] = count(); }'
measure "stk uprobe" 'stk_sc_uprobe' "$STK" stackcount -p @PID@ "$RL:rl_step_a"
measure "bpftrace uprobe" 'rl_step_a' bt "uprobe:$RL:rl_step_a /pid == @PID@/ { @[kstack, ustack] = count(); }"
measure "stk usdt" 'stk_sc_usdt' "$STK" stackcount -p @PID@ "u:$RL:tick"
measure "bpftrace usdt" 'tick' bt "usdt:$RL:stk_readloop:tick /pid == @PID@/ { @[kstack, ustack] = count(); }"

# Kernel functions: only where this kernel has a mechanism for them.
kf=$("$STK" info 2>/dev/null | sed -n 's/^stackcount kernel function: \([a-z_.]*\).*/\1/p')
if [ "$kf" != none ] && [ -n "$kf" ]; then
    measure "stk $kf vfs_read" 'stk_sc_' "$STK" stackcount -p @PID@ vfs_read
    measure "bpftrace kprobe vfs_read" 'vfs_read' bt 'kprobe:vfs_read /pid == @PID@/ { @[kstack, ustack] = count(); }'
    kf_labels=("stk $kf vfs_read" "bpftrace kprobe vfs_read")
else
    kf_why=$("$STK" stackcount vfs_read 2>&1 | head -1)
    bt_why=$(timeout 10 unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; bpftrace -e 'kprobe:vfs_read { @ = count(); } interval:s:1 { exit(); }'" 2>&1 | grep -iE 'error|fail' | grep -v RLIMIT_MEMLOCK | tail -1)
    kf_labels=()
fi

# Attach time of a ~200-function wildcard, for one idle process (its libc)
start_workload
nfun=$("$STK" stackcount -d -p "$WPID" --max-probes 100000 -D 0.1 "$WILDCARD" 2>&1 | sed -n 's/.*matched \([0-9]*\):.*/\1/p')
attach_ms() { # STK-ARGS...: stk's own attach time (load included), median
    local t=()
    for _ in $(seq "$REPEAT"); do
        t+=("$("$STK" stackcount -v -p "$WPID" --max-probes 100000 -D 0.1 "$@" 2>&1 >/dev/null |
                sed -n 's/.* attached with .* in \([0-9.]*\) ms.*/\1/p')")
    done
    printf '%s\n' "${t[@]}" | grep . | median
}
ready_ms() { # CMD...: wall time from launch to the line saying it traces, median
    local t=() s
    for _ in $(seq "$REPEAT"); do
        s=$(date +%s%N)
        "$@" 2>&1 | while read -r line; do case $line in *"attached with"*|ATTACHED*) echo $(( ($(date +%s%N) - s) / 1000000 )); break ;; esac; done > "$tmp/ready"
        t+=("$(cat "$tmp/ready")")
    done
    printf '%s\n' "${t[@]}" | grep . | median
}
libc=$(awk '$NF ~ /libc\.so/ { print $NF; exit }' /proc/"$WPID"/maps)
multi_ms=$(attach_ms "$WILDCARD")
single_ms=$(attach_ms --mechanism uprobe "$WILDCARD")
stk_ready=$(ready_ms timeout 20 "$STK" stackcount -v -p "$WPID" --max-probes 100000 -D 0.1 "$WILDCARD")
bt_ready=$(ready_ms timeout 60 unshare -m sh -c "exec bpftrace -e 'uprobe:$libc:${WILDCARD#c:} /pid == $WPID/ { @[ustack] = count(); } BEGIN { printf(\"ATTACHED\\n\"); exit(); }'")
kill "$WPID"; wait "$WPID" 2>/dev/null

printf '\n%-60s %s\n' "measure (readloop, $ITER iterations, median of $REPEAT)" "value"
printf '%-60s %s\n' "read loop alone (ops/s)" "${ops[alone]}"
tp_labels=("stk raw_tp sys_enter" "stk tracepoint sys_enter" "bpftrace tracepoint sys_enter")
for l in "stk tracepoint" "bpftrace tracepoint" "${tp_labels[@]}" "stk uprobe" "bpftrace uprobe" "stk usdt" "bpftrace usdt" \
         "${kf_labels[@]}"; do
    printf '%-60s %s\n' "per-event BPF cost, $l (ns)" "${cost[$l]:-n/a}"
done
printf '%-60s %s\n' "stk / bpftrace cost ratio, tracepoint" "$(ratio "${cost[stk tracepoint]:-}" "${cost[bpftrace tracepoint]:-}")"
printf '%-60s %s\n' "stk raw_tp / bpftrace cost ratio, raw_syscalls:sys_enter" \
    "$(ratio "${cost[stk raw_tp sys_enter]:-}" "${cost[bpftrace tracepoint sys_enter]:-}")"
printf '%-60s %s\n' "stk / bpftrace cost ratio, uprobe" "$(ratio "${cost[stk uprobe]:-}" "${cost[bpftrace uprobe]:-}")"
printf '%-60s %s\n' "stk / bpftrace cost ratio, usdt" "$(ratio "${cost[stk usdt]:-}" "${cost[bpftrace usdt]:-}")"
for l in "stk tracepoint" "bpftrace tracepoint" "perf stat -e tracepoint" "${tp_labels[@]}" "stk uprobe" "bpftrace uprobe" \
         "stk usdt" "bpftrace usdt" "${kf_labels[@]}"; do
    printf '%-60s %s\n' "read loop under $l: ops/s (traced/alone)" "${ops[$l]:-n/a} ($(ratio "${ops[$l]:-}" "${ops[alone]}"))"
done
printf '%-60s %s\n' "attach $nfun functions ($WILDCARD), stk uprobe.multi (ms)" "${multi_ms:-n/a}"
printf '%-60s %s\n' "attach $nfun functions ($WILDCARD), stk one uprobe each (ms)" "${single_ms:-n/a}"
printf '%-60s %s\n' "launch to tracing, stk uprobe.multi (ms)" "${stk_ready:-n/a}"
printf '%-60s %s\n' "launch to tracing, bpftrace uprobe:libc:${WILDCARD#c:} (ms)" "${bt_ready:-n/a}"
if [ "${#kf_labels[@]}" -eq 0 ]; then
    echo "kernel functions (vfs_read): not measurable on this kernel"
    echo "  stk: $kf_why"
    echo "  bpftrace: ${bt_why:-no error line}"
fi
