#!/bin/bash
# bench/recorder: what the flight recorder costs a host left running, on
# Debian's MariaDB under sysbench oltp_read_write (4 threads). Each set is
# recorded for the whole host into a series directory (-o DIR/, as the
# systemd unit does) for SECS of load, ROUNDS times interleaved, medians:
#   - the default set (stk record with no -e: cpu:19, offcpu:512, state:1),
#   - the same with every switch-out taken (offcpu unsampled),
#   - CPU samples and thread states alone (no off-CPU).
# After SETTLE seconds of load (a recorder's start is not its steady cost),
# cost = stk's own CPU + the run time of all its BPF programs
# (kernel.bpf_stats_enabled), as a share of the whole host; peak RSS;
# throughput against no tool; bytes of Parquet an hour at that rate.
# SETS="cpu:19,offcpu:32,state:1 ..." adds sets to the table. LONG=SECONDS then runs the default set that long with
# the service's flags (one file an hour) under the same load, with 100 short processes a second and a new program
# (a file of its own) every 10 s beside it, and prints its RSS (anonymous and file pages), its peak between marks
# and its open descriptors after the first minute, every MARK seconds (default 600) and at the end (they must
# stay flat), and its host CPU over the run.
# Everything comes from Debian's packages, installed when missing. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-20}
SETTLE=${SETTLE:-5} # seconds of load first: a recorder's start (tables built, stacks named) is not its steady cost
LONG=${LONG:-0}
BENCH_NAME=bench/recorder
. "$root/bench/mariadb_env.sh"

labels=("default set ($(awk -F'"' '/define STK_REC_DEFAULT_KINDS/ { print $2 }' "$root/core/record/kinds.h"))"
        "offcpu unsampled (cpu:19,offcpu,state:1)" "no off-CPU (cpu:19,state:1)")
declare -A ARGS=([${labels[0]}]="" [${labels[1]}]="-e cpu:19,offcpu,state:1" [${labels[2]}]="-e cpu:19,state:1")
# SETS="KINDS ...": more sets side by side (-e KINDS each), e.g. other offcpu:N
for k in ${SETS:-}; do labels+=("-e $k"); ARGS["-e $k"]="-e $k"; done

fds() { ls /proc/"$1"/fd 2>/dev/null | wc -l; }
dir_bytes() { find "$1" -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

sysctl -qw kernel.bpf_stats_enabled=1
"${SB[@]}" --threads=4 --time=5 run >/dev/null 2>&1 # warm the buffer pool
declare -A SHARE BPF TPS RSS BYTES SWITCH
base=()
for _ in $(seq "$ROUNDS"); do
    base+=("$(tps "$SECS")")
    for l in "${labels[@]}"; do
        rm -rf "$tmp/rec" && mkdir -m 0700 "$tmp/rec"
        # exec: the background job is stk itself (its BPF programs found through its pid)
        bash -c "exec $STK record ${ARGS[$l]} -o $tmp/rec/" >/dev/null 2>"$tmp/tool.err" & tp=$!
        if ! wait_attached $tp 1; then
            echo "bench/recorder: $l did not attach: $(head -1 "$tmp/tool.err")" >&2
            kill -9 $tp; wait $tp 2>/dev/null; continue
        fi
        tps "$SETTLE" >/dev/null
        c0=$(cpu_ns $tp); read -r b0 _ < <(bpf_ns_runs $tp .); read -r s0 n0 < <(bpf_ns_runs $tp stk_offcpu)
        t0=$(date +%s%N)
        TPS[$l]+="$(tps "$SECS") "
        c1=$(cpu_ns $tp); read -r b1 _ < <(bpf_ns_runs $tp .); read -r s1 n1 < <(bpf_ns_runs $tp stk_offcpu)
        t1=$(date +%s%N)
        [ $((n1 - n0)) -gt 0 ] && SWITCH[$l]+="$(( (s1 - s0) / (n1 - n0) )) "
        RSS[$l]+="$(( $(status_kb $tp VmHWM) / 1024 )) "
        kill -TERM $tp; wait $tp 2>/dev/null
        SHARE[$l]+="$(host_share $((c1 - c0)) $((b1 - b0)) $((t1 - t0))) "
        BPF[$l]+="$(in_secs $((b1 - b0))) "
        BYTES[$l]+="$(awk -v b="$(dir_bytes "$tmp/rec")" -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", b * 3600e9 / t / 1048576 }') "
    done
done
base_tps=$(printf '%s\n' "${base[@]}" | median)
load_title "$SECS" "$ROUNDS"
printf '%-44s %9s %7s %10s %11s %7s %8s\n' "stk record -o DIR/, every process" "host CPU" "BPF s" \
    "ns/switch" "throughput" "RSS" "MB/hour"
printf '%-44s %9s %7s %10s %11s %7s %8s\n' "none ($(printf '%.0f' "$base_tps") tps)" "" "" "" "x1.00" "" ""
for l in "${labels[@]}"; do
    printf '%-44s %8s%% %7s %10s %11s %4s MB %8s\n' "$l" "$(med "${SHARE[$l]:-}")" "$(med "${BPF[$l]:-}")" \
        "$(med "${SWITCH[$l]:-}")" "x$(ratio "$(med "${TPS[$l]:-}")" "$base_tps")" "$(med "${RSS[$l]:-}")" \
        "$(med "${BYTES[$l]:-}")"
done

[ "$LONG" -gt 0 ] || exit 0
# --- the long run: the default set, load and process churn for LONG seconds ---
rm -rf "$tmp/rec" && mkdir -m 0700 "$tmp/rec"
# the service's own flags (packaging/systemd/stk-record.service): one file the whole hour
bash -c "exec $STK record --rotate 1h --max-size 2G -o $tmp/rec/" >/dev/null 2>"$tmp/tool.err" & tp=$!
wait_attached $tp 1 || { echo "bench/recorder: the long run did not attach: $(head -1 "$tmp/tool.err")" >&2; exit 1; }
start=$(date +%s)
end=$(( start + LONG ))
( while [ "$(date +%s)" -lt "$end" ]; do "${SB[@]}" --threads=4 --time=60 run >/dev/null 2>&1; done ) & load=$!
# 100 short processes a second; every 10 s one more, a program of its own (a copy of sh without a
# build ID, at a new path, deleted after it ran), as a host that builds and runs new binaries has
mkdir -p "$tmp/new"
( n=0
  while [ "$(date +%s)" -lt "$end" ]; do
      for _ in $(seq 10); do /bin/true; done
      sleep 0.1
      n=$((n + 1))
      if [ $((n % 100)) -eq 0 ]; then
          objcopy --remove-section .note.gnu.build-id "$(readlink -f /bin/sh)" "$tmp/new/sh$n" &&
              "$tmp/new/sh$n" -c 'i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done'
          rm -f "$tmp/new/sh$n"
      fi
  done ) & churn=$!
sleep 60
rss0=$(status_kb $tp VmRSS) fd0=$(fds $tp) anon0=$(status_kb $tp RssAnon)
c0=$(cpu_ns $tp); read -r b0 _ < <(bpf_ns_runs $tp .); t0=$(date +%s%N)
# every MARK seconds (default 600) RSS, its peak since the last mark (read every 5 s: a new file's
# forgetting makes a sawtooth, and a leak shows in its tops) and descriptors, so a slope shows
marks=() next=$(( start + ${MARK:-600} )) top=0
while kill -0 $load 2>/dev/null; do
    sleep 5
    now_kb=$(status_kb $tp VmRSS)
    [ "${now_kb:-0}" -gt "$top" ] && top=$now_kb
    if [ "$(date +%s)" -ge "$next" ] && kill -0 $load 2>/dev/null; then
        marks+=("$(printf '%-28s %7s MB %7s MB %10s %10s' "after $((next - start)) s" "$((now_kb / 1024))" "$((top / 1024))" \
            "$(( $(status_kb $tp RssAnon) / 1024 )) + $(( $(status_kb $tp RssFile) / 1024 ))" "$(fds $tp)")")
        next=$(( next + ${MARK:-600} )) top=0
    fi
done
wait $load $churn
rss1=$(status_kb $tp VmRSS) fd1=$(fds $tp) hwm=$(status_kb $tp VmHWM) anon1=$(status_kb $tp RssAnon)
c1=$(cpu_ns $tp); read -r b1 _ < <(bpf_ns_runs $tp .); t1=$(date +%s%N)
kill -TERM $tp; wait $tp 2>/dev/null
printf '\nthe default set for %d s under load, 100 short processes a second and a new program every 10 s beside it\n' "$LONG"
printf '%-28s %10s %10s\n' "" "after 60 s" "at the end"
printf '%-28s %7s MB %7s MB\n' "RSS" "$((rss0 / 1024))" "$((rss1 / 1024))"
printf '%-28s %7s MB %7s MB\n' "  of it anonymous" "$((anon0 / 1024))" "$((anon1 / 1024))"
printf '%-28s %10s %10s\n' "open descriptors" "$fd0" "$fd1"
printf '%-28s %10s %7s MB\n' "peak RSS" "" "$((hwm / 1024))"
printf '%-28s %10s %8s%%\n' "host CPU (stk + BPF)" "" "$(host_share $((c1 - c0)) $((b1 - b0)) $((t1 - t0)))"
[ ${#marks[@]} -gt 0 ] && printf '%-28s %10s %10s %10s %10s\n' "along the way" "RSS" "its peak" "anon + file" "descriptors" && printf '%s\n' "${marks[@]}"
printf '%-28s %10s %7s MB\n' "Parquet written" "" "$(( $(dir_bytes "$tmp/rec") / 1048576 ))"
