#!/bin/bash
# bench/mariadb: complete stacks on a real server under real load. Debian's
# MariaDB under sysbench oltp_read_write (4 threads, 4 tables of 20,000
# rows), each tool against runs without any tool, interleaved, medians of
# REPEAT; then one LONG run of each stk applet and of perf's DWARF unwinding
# for what they cost and how complete their stacks are. Prints one table:
#   throughput       transactions/s with the tool / without
#   BPF cost         run_time_ns / run_cnt of the tool's program (bpf_stats)
#   stk CPU, RSS     over the long run (CPU as a share of the whole host)
#   lost             blocks or samples stk said it lost (its WARNING lines)
#   root reached     share of mariadbd's off-CPU time / CPU samples whose
#                    stack goes up to a thread root (_start, clone)
#   tables           the kernel unwinder's tables for mariadbd, libc, libstdc++
# Everything comes from Debian's packages (mariadb-server, sysbench, bpftrace,
# linux-perf), installed here when missing; MariaDB runs privately from a
# scratch directory and is stopped at the end. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
SECS=${SECS:-20}
LONG=${LONG:-60}
BENCH_NAME=bench/mariadb MARIADB_PKGS="bpftrace linux-perf"
. "$root/bench/mariadb_env.sh"
# bpftrace needs tracefs, which this host may not mount: a private mount.
BT_OFFCPU='tracepoint:sched:sched_switch {
  if (args->prev_pid) { @ts[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; }
  $t = @ts[args->next_pid];
  if ($t) { @[@ks[args->next_pid], @us[args->next_pid], args->next_comm] = sum(nsecs - $t); delete(@ts[args->next_pid]); }
}'
bpftrace_offcpu() { exec unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$BT_OFFCPU'"; }

declare -A TOOL RE
TOOL[none]=""
TOOL[stk offcputime]="$STK offcputime"
TOOL[stk offcputime --unwind dwarf]="$STK offcputime --unwind dwarf"
TOOL[stk offcputime --unwind fp]="$STK offcputime --unwind fp"
TOOL[bpftrace offcpu (fp)]="bpftrace_offcpu"
TOOL[stk profile -F 99]="$STK profile -F 99"
TOOL[stk profile -F 99 --unwind dwarf]="$STK profile -F 99 --unwind dwarf"
TOOL[perf record -g -F 99]="perf record -q -g -F 99 -a -o $tmp/perf.data"
TOOL[perf record --call-graph dwarf -F 99]="perf record -q --call-graph dwarf -F 99 -a -o $tmp/perf.data"
RE[stk offcputime]=stk_offcpu; RE[stk offcputime --unwind dwarf]=stk_offcpu; RE[stk offcputime --unwind fp]=stk_offcpu
RE[bpftrace offcpu (fp)]=sched_switch; RE[stk profile -F 99]=stk_profile; RE[stk profile -F 99 --unwind dwarf]=stk_profile
order=("none" "stk offcputime" "stk offcputime --unwind dwarf" "stk offcputime --unwind fp" "bpftrace offcpu (fp)"
       "stk profile -F 99" "stk profile -F 99 --unwind dwarf" "perf record -g -F 99" "perf record --call-graph dwarf -F 99")

sysctl -qw kernel.bpf_stats_enabled=1
declare -A T C
for rep in $(seq "$REPEAT"); do
    for label in "${order[@]}"; do
        if [ -z "${TOOL[$label]}" ]; then
            T[$label]+="$(tps "$SECS") "
            continue
        fi
        ${TOOL[$label]} >/dev/null 2>"$tmp/tool.err" & tp=$!
        if ! wait_attached $tp && [[ $label != perf* ]]; then
            echo "bench/mariadb: $label did not attach: $(head -1 "$tmp/tool.err")" >&2
            kill -9 $tp; wait $tp 2>/dev/null; continue
        fi
        [[ $label == perf* ]] && sleep 1
        T[$label]+="$(tps "$SECS") "
        [ -n "${RE[$label]:-}" ] && C[$label]+="$(bpf_cost $tp "${RE[$label]}") "
        kill -INT $tp; wait $tp 2>/dev/null
    done
done
base=$(printf '%s\n' ${T[none]} | median)

# --- the long runs: stk's CPU, memory, losses, completeness; perf's completeness ---
# root_share FILE: percent of the weight (the capture is of mariadbd only) whose outermost frame is a thread root
root_share() {
    awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); split(line, f, ";"); total += n
           if (f[2] ~ /^(_start|__clone3|clone3|__clone|clone|thread_start)$/) hit += n }
         END { printf "%d\n", total ? hit * 100 / total : -1 }' "$1"
}
declare -A cpu rss lost root
measure_long() { # LABEL CMD...: CPU share and peak RSS sampled from /proc while it runs
    local label=$1 tp c0 t0 c1 t1 hwm; shift
    # no duration: it runs until read (CPU, peak RSS), then SIGINT prints its stacks
    "$@" -v -f -p "$mpid" >"$tmp/long.folded" 2>"$tmp/long.err" & tp=$!
    wait_attached $tp
    c0=$(cpu_ns $tp); t0=$(date +%s%N)
    "${SB[@]}" --threads=4 --time="$LONG" run >/dev/null 2>&1
    c1=$(cpu_ns $tp); t1=$(date +%s%N)
    hwm=$(status_kb "$tp" VmHWM)
    kill -INT $tp; wait $tp
    cpu[$label]=$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v n="$(nproc)" 'BEGIN { printf "%.1f%%", c * 100 / t / n }')
    rss[$label]="$((hwm / 1024)) MB"
    lost[$label]=$(grep -c '^WARNING' "$tmp/long.err")
    root[$label]="$(root_share "$tmp/long.folded")%"
    cp "$tmp/long.err" "$tmp/$(echo "$label" | tr ' ' '_').err"
}
measure_long "stk offcputime" "$STK" offcputime
measure_long "stk profile -F 99" "$STK" profile -F 99
tables=$(grep 'unwind table: .*\(mariadbd\|libc.so\|libstdc++\)' "$tmp/stk_profile_-F_99.err" | sed 's/^profile: unwind table: //')
# perf --call-graph dwarf over the same load: its stacks folded the same way
perf record -q --call-graph dwarf -F 99 -p "$mpid" -o "$tmp/perf.data" -- sleep "$((LONG / 3))" >/dev/null 2>&1 &
pp=$!
"${SB[@]}" --threads=4 --time=$((LONG / 3 - 1)) run >/dev/null 2>&1
wait $pp
perf script -F comm,sym -i "$tmp/perf.data" 2>/dev/null | awk '
    /^[^ \t]/ { if (n) emit(); comm = $1; n = 0; next }
    NF { s[++n] = $1 }
    END { if (n) emit() }
    function emit(  i, line) { line = comm; for (i = n; i >= 1; i--) line = line ";" s[i]; print line, 1; n = 0 }' \
    > "$tmp/perf.folded"
root[perf record --call-graph dwarf -F 99]="$(root_share "$tmp/perf.folded")%"

printf '\nMariaDB %s under sysbench oltp_read_write (4 threads, 4 x 20000 rows), %d s runs, median of %d; %d CPUs\n' \
    "$(mariadbd --version | awk '{ print $3 }')" "$SECS" "$REPEAT" "$(nproc)"
printf '%-40s %10s %10s %9s %8s %6s %8s\n' "tool" "throughput" "BPF ns/ev" "stk CPU" "RSS" "lost" "at root"
printf '%-40s %10s\n' "none ($(printf '%.0f' "$base") tps)" "x1.00"
for label in "${order[@]:1}"; do
    t=$(printf '%s\n' ${T[$label]:-} | median)
    c=$(printf '%s\n' ${C[$label]:-} | grep . | median)
    printf '%-40s %10s %10s %9s %8s %6s %8s\n' "$label" "x$(ratio "$t" "$base")" "${c:--}" "${cpu[$label]:--}" \
        "${rss[$label]:--}" "${lost[$label]:--}" "${root[$label]:--}"
done
printf '\nkernel unwinder tables (from stk profile -v):\n%s\n' "$tables"
