#!/bin/bash
# bench/offcpu_cost: what off-CPU tracing costs the host, stk against
# bpftrace's one-liners for the same stacks, on Debian's MariaDB under sysbench
# oltp_read_write (4 threads). Cost = the tool's own CPU + the run time of all
# its BPF programs (kernel.bpf_stats_enabled), as a share of the whole host,
# over SECS of load; throughput beside it. Each tool ROUNDS times, interleaved,
# medians. Pairs: user stacks of mariadbd (-U -p; bpftrace: ustack at
# switch-out of that pid), kernel + user stacks of mariadbd, and of every
# process. bpftrace walks frame pointers, which Debian's mariadbd does not
# keep: its user stacks stop after a frame or two where stk's reach the root.
# Everything comes from Debian's packages, installed when missing. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-15}
BENCH_NAME=bench/offcpu_cost MARIADB_PKGS="bpftrace"
. "$root/bench/mariadb_env.sh"

# bpftrace needs tracefs, which this host may not mount: a private mount.
bt() { exec unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$1'"; }
bt_sum='tracepoint:sched:sched_switch { $t = @ts[args->next_pid]; if ($t) { @[@ks[args->next_pid], @us[args->next_pid], args->next_comm] = sum(nsecs - $t); delete(@ts[args->next_pid]); } }'
BT_U="tracepoint:sched:sched_switch /args->prev_pid != 0 && pid == $mpid/ { @ts[args->prev_pid] = nsecs; @us[args->prev_pid] = ustack; }
tracepoint:sched:sched_switch { \$t = @ts[args->next_pid]; if (\$t) { @[@us[args->next_pid], args->next_comm] = sum(nsecs - \$t); delete(@ts[args->next_pid]); } }"
BT_KU_P="tracepoint:sched:sched_switch /args->prev_pid != 0 && pid == $mpid/ { @ts[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; }
$bt_sum"
BT_KU_ALL="tracepoint:sched:sched_switch /args->prev_pid != 0/ { @ts[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; }
$bt_sum"

labels=("stk offcputime -U -p MARIADBD" "bpftrace ustack, pid MARIADBD"
        "stk offcputime -p MARIADBD" "bpftrace kstack + ustack, pid MARIADBD"
        "stk offcputime (every process)" "bpftrace kstack + ustack (every process)")
declare -A CMD RE
# exec: the background job is the tool itself (its BPF programs found through its pid)
CMD[${labels[0]}]="exec $STK offcputime -U -p $mpid"; RE[${labels[0]}]=stk_offcpu
CMD[${labels[1]}]='bt "$BT_U"'; RE[${labels[1]}]=sched_switch
CMD[${labels[2]}]="exec $STK offcputime -p $mpid"; RE[${labels[2]}]=stk_offcpu
CMD[${labels[3]}]='bt "$BT_KU_P"'; RE[${labels[3]}]=sched_switch
CMD[${labels[4]}]="exec $STK offcputime"; RE[${labels[4]}]=stk_offcpu
CMD[${labels[5]}]='bt "$BT_KU_ALL"'; RE[${labels[5]}]=sched_switch

sysctl -qw kernel.bpf_stats_enabled=1
"${SB[@]}" --threads=4 --time=5 run >/dev/null 2>&1 # warm the buffer pool
declare -A SHARE BPF TPS RSS
base=()
for _ in $(seq "$ROUNDS"); do
    base+=("$(tps "$SECS")")
    for l in "${labels[@]}"; do
        eval "${CMD[$l]}" >/dev/null 2>"$tmp/tool.err" & tp=$!
        if ! wait_attached $tp 1; then
            echo "bench/offcpu_cost: $l did not attach: $(head -1 "$tmp/tool.err")" >&2
            kill -9 $tp; wait $tp 2>/dev/null; continue
        fi
        c0=$(cpu_ns $tp); read -r b0 _ < <(bpf_ns_runs $tp "${RE[$l]}"); t0=$(date +%s%N)
        TPS[$l]+="$(tps "$SECS") "
        c1=$(cpu_ns $tp); read -r b1 _ < <(bpf_ns_runs $tp "${RE[$l]}"); t1=$(date +%s%N)
        RSS[$l]+="$(( $(status_kb $tp VmHWM) / 1024 )) "
        kill -TERM $tp; wait $tp 2>/dev/null
        SHARE[$l]+="$(host_share $((c1 - c0)) $((b1 - b0)) $((t1 - t0))) "
        BPF[$l]+="$(in_secs $((b1 - b0))) "
    done
done
base_tps=$(printf '%s\n' "${base[@]}" | median)
load_title "$SECS" "$ROUNDS"
printf '%-44s %10s %10s %11s %7s\n' "tool" "host CPU" "BPF s" "throughput" "RSS"
printf '%-44s %10s %10s %11s %7s\n' "none ($(printf '%.0f' "$base_tps") tps)" "" "" "x1.00" ""
for l in "${labels[@]}"; do
    printf '%-44s %9s%% %10s %11s %4s MB\n' "$l" "$(med "${SHARE[$l]:-}")" "$(med "${BPF[$l]:-}")" \
        "x$(ratio "$(med "${TPS[$l]:-}")" "$base_tps")" "$(med "${RSS[$l]:-}")"
done
for i in 0 2 4; do
    a=$(med "${SHARE[${labels[$i]}]:-}") b=$(med "${SHARE[${labels[$((i + 1))]}]:-}")
    printf '%-44s %s\n' "${labels[$i]} / bpftrace" "$(ratio "$a" "$b")"
done
