#!/bin/bash
# bench/churn_cost: what a system-wide profile at 99 Hz costs a host that starts
# about RATE (default 100) short processes a second beside Debian's MariaDB
# under sysbench oltp_read_write (4 threads): the processes of a build's
# scripts, each a few milliseconds of dash, mawk, sed, sort or gzip, so that
# samples land in processes no tool has seen yet (new process entries, new
# mappings, stk's copy path until their tables are loaded). Cost = the tool's
# own CPU + the run time of all its BPF programs (kernel.bpf_stats_enabled),
# as a share of ONE CPU, over SECS; each tool ROUNDS times, interleaved,
# medians; the rate of processes reached is printed with each round. perf
# record's cost is its own process's CPU only (its sampling runs in the kernel
# outside any program): it is a floor. bpftrace names its stacks only when it
# prints them at the end, so its share covers the capture, not that. Everything comes from Debian's packages,
# installed when missing. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-20}
RATE=${RATE:-100}
BENCH_NAME=bench/churn_cost MARIADB_PKGS="bpftrace linux-perf"
. "$root/bench/mariadb_env.sh"

# churn_for SECS: RATE short processes a second, in batches of RATE/10 every 100 ms;
# prints how many ran
churn_for() {
    local end=$(( $(date +%s%N) + $1 * 1000000000 )) next n=0 batch=$(( RATE / 10 )) i procs
    next=$(date +%s%N)
    while [ "$(date +%s%N)" -lt "$end" ]; do
        procs=()
        for i in $(seq "$batch"); do
            case $(( (n + i) % 5 )) in
                0) sh -c 'i=0; while [ $i -lt 1500 ]; do i=$((i+1)); done' ;;
                1) mawk 'BEGIN { for (i = 0; i < 30000; i++) s += i }' ;;
                2) seq 3000 | sed 's/1/one/g' >/dev/null ;;
                3) seq 3000 | sort -r >/dev/null ;;
                4) gzip -c /etc/services >/dev/null ;;
            esac &
            procs+=($!)
        done
        wait "${procs[@]}" # these only: the server and the tool are this shell's jobs too
        n=$((n + batch))
        next=$((next + 100000000))
        local now=$(date +%s%N)
        [ "$now" -lt "$next" ] && sleep "$(awk -v d=$((next - now)) 'BEGIN { printf "%.3f", d / 1e9 }')"
    done
    echo "$n"
}

# bpftrace needs tracefs, which this host may not mount: a private mount.
bt() { exec unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$1'"; }
BT='profile:hz:99 { @[ustack, kstack, comm] = count(); }'
labels=("stk profile -F 99" "stk profile -F 99 --unwind fp" "bpftrace profile:hz:99 ustack + kstack" "perf record -g -F 99 -a (its own CPU)")
declare -A CMD RE
# exec: the background job is the tool itself (its BPF programs found through its pid)
CMD[${labels[0]}]="exec $STK profile -F 99"; RE[${labels[0]}]=.
CMD[${labels[1]}]="exec $STK profile -F 99 --unwind fp"; RE[${labels[1]}]=.
CMD[${labels[2]}]='bt "$BT"'; RE[${labels[2]}]=.
CMD[${labels[3]}]="exec perf record -q -g -F 99 -a -o $tmp/perf.data"; RE[${labels[3]}]=none

sysctl -qw kernel.bpf_stats_enabled=1
"${SB[@]}" --threads=4 --time=5 run >/dev/null 2>&1 # warm the buffer pool
churn_for 2 >/dev/null                                # and the page cache of the churn's programs
declare -A SHARE RSS PROCS
for r in $(seq "$ROUNDS"); do
    for l in "${labels[@]}"; do
        "${SB[@]}" --threads=4 --time=$((SECS + 8)) run >/dev/null 2>&1 & load=$!
        eval "${CMD[$l]}" >/dev/null 2>"$tmp/tool.err" & tp=$!
        if [ "${RE[$l]}" = none ]; then sleep 2; elif ! wait_attached $tp 1; then
            echo "bench/churn_cost: $l did not attach: $(head -1 "$tmp/tool.err")" >&2
            kill -9 $tp $load; wait $tp $load 2>/dev/null; continue
        fi
        churn_for 3 >/dev/null # the tool's start (tables of what already runs) is not its steady cost
        c0=$(cpu_ns $tp); read -r b0 _ < <(bpf_ns_runs $tp "${RE[$l]}"); t0=$(date +%s%N)
        n=$(churn_for "$SECS")
        c1=$(cpu_ns $tp); read -r b1 _ < <(bpf_ns_runs $tp "${RE[$l]}"); t1=$(date +%s%N)
        RSS[$l]+="$(( $(status_kb $tp VmHWM) / 1024 )) "
        # bpftrace prints its map at SIGINT, naming every stack of processes long gone: minutes of
        # CPU on this load, after the window measured; 10 s, then it is killed
        kill -INT $tp
        for _ in $(seq 100); do kill -0 $tp 2>/dev/null || break; sleep 0.1; done
        kill -9 $tp 2>/dev/null; wait $tp 2>/dev/null
        kill $load 2>/dev/null; wait $load 2>/dev/null
        SHARE[$l]+="$(awk -v c=$((c1 - c0)) -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", (c + b) * 100 / t }') "
        PROCS[$l]+="$(awk -v n="$n" -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / t }') "
        echo "round $r: $l: $(echo ${SHARE[$l]} | awk '{ print $NF }')% of one CPU, $(echo ${PROCS[$l]} | awk '{ print $NF }') processes/s" >&2
    done
done
printf '\nsystem-wide profile at 99 Hz, MariaDB %s under sysbench oltp_read_write (4 threads) and about %d short\n' \
    "$(mariadbd --version | awk '{ print $3 }')" "$RATE"
printf 'processes a second beside it, %d s, median of %d rounds; %d CPUs\n' "$SECS" "$ROUNDS" "$(nproc)"
printf '%-44s %16s %13s %8s\n' "tool" "% of one CPU" "processes/s" "RSS"
for l in "${labels[@]}"; do
    printf '%-44s %15s%% %13s %5s MB\n' "$l" "$(med "${SHARE[$l]:-}")" "$(med "${PROCS[$l]:-}")" "$(med "${RSS[$l]:-}")"
done
