#!/bin/bash
# bench/offcputime: stk offcputime against Debian's bpftrace doing the same
# accounting on tracepoint:sched:sched_switch, under a context-switch-heavy
# job (two threads ping-ponging a byte over pipes), in one run. Prints a
# table: per-switch BPF cost from kernel.bpf_stats_enabled (run_time_ns /
# run_cnt of each tool's sched_switch program), stk's own CPU time per switch
# (with --unwind dwarf: unwinding the new stacks it is sent), and the job's
# slowdown (wall time with the tool tracing / without), medians of REPEAT runs.
# Needs root. Installs bpftrace with apt if missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-5}
TRIPS=${TRIPS:-100000}
tmp=$(mktemp -d)
trap 'kill -INT $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT

bench_install bench/offcputime bpftrace

# The same work as stk's default: stacks at switch-out, time summed per (kstack, ustack, comm) at switch-in.
BT='tracepoint:sched:sched_switch {
  if (args->prev_pid) { @ts[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; }
  $t = @ts[args->next_pid];
  if ($t) { @[@ks[args->next_pid], @us[args->next_pid], args->next_comm] = sum(nsecs - $t); delete(@ts[args->next_pid]); }
}'
# bpftrace needs tracefs for tracepoints; this host has none mounted: mount it privately.
run_bpftrace() { exec unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$BT'"; }


# "ns_per_run runs" of the sched_switch program held by process PID (found through its fdinfo)
prog_cost() { # PID NAME_REGEX
    local id
    for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
        bpftool prog show id "$id" 2>/dev/null | re="$2" awk '
            NR == 1 && $0 ~ ENVIRON["re"] { for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) }
                                 if (c > 0) printf "%.0f %d\n", t / c, c }'
    done
}
cpu_ns() { sed 's/.*) //' /proc/"$1"/stat | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($12 + $13) * 1e9 / hz }'; }

# Both threads on one CPU: every pass is a plain context switch. Across CPUs the
# job mostly measures idle-exit latency, which any tracer's extra work hides.
job_us() { taskset -c 0 "$W/offcpu_pingpong" "$TRIPS" | awk '{ print $1 }'; }

# wait until PID holds a BPF program (attached), at most 10 s

sysctl -qw kernel.bpf_stats_enabled=1
declare -A cost slow
base=()
for _ in $(seq "$REPEAT"); do base+=("$(job_us)"); done
base_us=$(printf '%s\n' "${base[@]}" | median)

declare -A user
measure() { # LABEL PROG_REGEX CMD...
    local label=$1 re=$2 c=() t=() u=() cpu0 ns runs; shift 2
    for _ in $(seq "$REPEAT"); do
        "$@" >/dev/null 2>"$tmp/err" & local tp=$!
        if ! wait_attached $tp 0.3; then echo "$label did not attach: $(head -1 "$tmp/err")" >&2; kill -9 $tp; wait $tp 2>/dev/null; continue; fi
        cpu0=$(cpu_ns $tp)
        t+=("$(job_us)")
        read -r ns runs < <(prog_cost $tp "$re" | head -1)
        c+=("$ns")
        u+=("$(awk -v a="$(cpu_ns $tp)" -v b="$cpu0" -v n="${runs:-0}" 'BEGIN { if (n > 0) printf "%.0f\n", (a - b) / n }')")
        kill -INT $tp; wait $tp 2>/dev/null
    done
    cost[$label]=$(printf '%s\n' "${c[@]}" | grep . | median)
    slow[$label]=$(printf '%s\n' "${t[@]}" | grep . | median)
    user[$label]=$(printf '%s\n' "${u[@]}" | grep . | median)
}
labels=("stk dwarf tp_btf" "stk dwarf raw_tp" "stk dwarf tracepoint" "stk fp tp_btf" "bpftrace")
measure "stk dwarf tp_btf" 'stk_offcpu_tp_b' "$STK" offcputime
measure "stk dwarf raw_tp" 'stk_offcpu_raw_' "$STK" offcputime --mechanism raw_tp
measure "stk dwarf tracepoint" 'stk_offcpu_trac' "$STK" offcputime --mechanism tracepoint
measure "stk fp tp_btf" 'stk_offcpu_tp_b' "$STK" offcputime --unwind fp
measure "bpftrace" 'sched_switch' run_bpftrace

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '\n%-52s %s\n' "measure ($TRIPS pipe round trips on one CPU, median of $REPEAT)" "value"
printf '%-52s %s\n' "job alone (ms)" "$(awk -v u="$base_us" 'BEGIN { printf "%.0f", u / 1000 }')"
for l in "${labels[@]}"; do
    printf '%-52s %s\n' "per-switch BPF cost, $l (ns)" "${cost[$l]:-n/a}"
done
for l in "stk dwarf tp_btf" "stk fp tp_btf"; do
    printf '%-52s %s\n' "per-switch user-space CPU, $l (ns)" "${user[$l]:-n/a}"
done
printf '%-52s %s\n' "stk dwarf tp_btf / bpftrace cost ratio" "$(ratio "${cost[stk dwarf tp_btf]:-}" "${cost[bpftrace]:-}")"
printf '%-52s %s\n' "stk fp tp_btf / bpftrace cost ratio" "$(ratio "${cost[stk fp tp_btf]:-}" "${cost[bpftrace]:-}")"
for l in "${labels[@]}"; do
    printf '%-52s %s\n' "slowdown of the job under $l" "$(ratio "${slow[$l]:-}" "$base_us")"
done
