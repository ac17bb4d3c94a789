#!/bin/bash
# bench/profile: stk profile against Debian's bpftrace and perf on the same
# workload in one run. Prints a table; medians of REPEAT runs where timed.
# Needs root. Installs bpftrace, linux-perf and time with apt if missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-5}
SECS=${SECS:-8}
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT

bench_install bench/profile bpftrace linux-perf time
gcc -O1 -fno-omit-frame-pointer -o "$tmp/manystacks" "$root/bench/manystacks.c"


# per-sample BPF cost: run_time_ns / run_cnt of the sampling program, 999 Hz, 2 burners
prog_cost() { # NAME_PATTERN -> ns per run
    bpftool prog show 2>/dev/null | pat="$1" awk '
        $0 ~ ENVIRON["pat"] { hit = 1 } hit && /run_time_ns/ {
            for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) }
            if (c > 0) printf "%.0f\n", t / c; hit = 0 }'
}
sysctl -qw kernel.bpf_stats_enabled=1
"$W/burn_static" 60 >/dev/null & "$W/burn_pie" 60 >/dev/null &
sleep 0.5

stk_costs=() bt_costs=()
for _ in $(seq 5); do
    "$STK" profile -F 999 >/dev/null 2>&1 & sp=$!
    sleep "$SECS"; stk_costs+=("$(prog_cost stk_profile_sample)"); kill -INT $sp; wait $sp
    timeout -s INT "$((SECS + 5))" bpftrace -e 'profile:hz:999 { @[kstack, ustack, comm, pid] = count(); }' \
        >/dev/null 2>"$tmp/bt.err" & bp=$!
    sleep "$SECS"; bt_costs+=("$(prog_cost 'perf_event')"); kill -INT $bp 2>/dev/null; wait $bp
done
stk_cost=$(printf '%s\n' "${stk_costs[@]}" | grep . | median)
bt_cost=$(printf '%s\n' "${bt_costs[@]}" | grep . | median)
[ -z "$bt_cost" ] && bt_cost="n/a ($(head -1 "$tmp/bt.err"))"

# workload slowdown: wall time of a fixed amount of work, alone and under each tool
work_s() { local s e; s=$(date +%s%N); "$tmp/manystacks" -n 20000 >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null
slow() { # LABEL CMD... (tool runs in background during the work)
    local t=()
    for _ in $(seq "$REPEAT"); do
        if [ $# -gt 1 ]; then "${@:2}" >/dev/null 2>&1 & tp=$!; sleep 1; fi
        t+=("$(work_s)")
        if [ $# -gt 1 ]; then kill -INT $tp 2>/dev/null; wait $tp 2>/dev/null; fi
    done
    printf '%s\n' "${t[@]}" | median
}
base_ms=$(slow none)
stk_ms=$(slow stk "$STK" profile -F 999)
bt_ms=$(slow bpftrace bpftrace -e 'profile:hz:999 { @[kstack, ustack, comm, pid] = count(); }')
perf_ms=$(slow perf perf record -F 999 -g -a -o "$tmp/perf.data")
ratio_of() { awk -v a="$1" -v b="$base_ms" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

# time from exec to sampling (stk -v reports it), idle machine, median
attach_ms=()
for _ in $(seq "$REPEAT"); do
    "$STK" profile -v -f 0.01 2>&1 >/dev/null | sed -n 's/^profile: sampling \([0-9.]*\) ms after start$/\1/p' > "$tmp/att"
    attach_ms+=("$(cat "$tmp/att")")
done
attach=$(printf '%s\n' "${attach_ms[@]}" | median)

# symbolization: >=5000 unique stacks across >=50 processes, and peak RSS. The
# workloads are stopped (SIGSTOP) just before the capture ends, so the timing
# is stk's own work, not 50 CPU hogs competing with it on 2 CPUs.
for _ in $(seq 50); do "$tmp/manystacks" 60 >/dev/null & done
sleep 0.5
( sleep 11.5; pkill -STOP -f "$tmp/manystacks" ) &
/usr/bin/time -f "%M %U %S" -o "$tmp/rss" "$STK" profile -F 499 -v -o "$tmp/many.txt" 12 2>"$tmp/many.err"
pkill -9 -f "$tmp/manystacks" 2>/dev/null
uniq_stacks=$(grep -c '^    -  ' "$tmp/many.txt")
procs=$(grep '^    -  ' "$tmp/many.txt" | awk '{ print $NF }' | sort -u | wc -l)
sym_ms=$(sed -n 's/.*resolved and printed [0-9]* stacks in \([0-9.]*\) ms.*/\1/p' "$tmp/many.err")
read -r rss_kb cpu_u cpu_s < <(tail -1 "$tmp/rss")
unwound=$(sed -n 's/.*unwound \([0-9]*\) user stacks with CFI in \([0-9.]*\) ms CPU.*/\1 samples, \2 ms/p' "$tmp/many.err")

printf '\n%-46s %s\n' "measure" "value"
printf '%-46s %s\n' "per-sample BPF cost, stk (ns, median of 5)" "$stk_cost"  # --unwind dwarf (default)
printf '%-46s %s\n' "per-sample BPF cost, bpftrace (ns, median of 5)" "$bt_cost"
if [ -n "${stk_cost//[0-9]/}" ] || [ -n "${bt_cost//[0-9]/}" ]; then ratio=n/a
else ratio=$(awk -v a="$stk_cost" -v b="$bt_cost" 'BEGIN { printf "%.2f", a / b }'); fi
printf '%-46s %s\n' "stk / bpftrace cost ratio" "$ratio"
printf '%-46s %s\n' "fixed work alone (ms, median)" "$base_ms"
printf '%-46s %s\n' "slowdown under stk profile -F 999" "$(ratio_of "$stk_ms")"
printf '%-46s %s\n' "slowdown under bpftrace profile:hz:999" "$(ratio_of "$bt_ms")"
printf '%-46s %s\n' "slowdown under perf record -F 999 -g -a" "$(ratio_of "$perf_ms")"
printf '%-46s %s\n' "exec to first sample, idle host (ms, median)" "$attach"
printf '%-46s %s\n' "unique stacks / processes in big capture" "$uniq_stacks / $procs"
printf '%-46s %s\n' "symbolize + print big capture (ms)" "${sym_ms:-n/a}"
printf '%-46s %s\n' "CFI unwinding during big capture" "${unwound:-n/a}"
printf '%-46s %s\n' "stk CPU for the whole big capture (s)" "$(awk -v u="$cpu_u" -v s="$cpu_s" 'BEGIN { printf "%.2f", u + s }')"
printf '%-46s %s\n' "peak RSS of stk (MB)" "$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
