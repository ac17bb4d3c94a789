#!/bin/bash
# bench/unwind: the cost of complete stacks. stk profile --unwind fp and
# --unwind dwarf against perf record -g and perf record --call-graph dwarf,
# at 99 and 999 Hz, on the same no-frame-pointer workload (bench/manystacks.c
# built -O2 -fomit-frame-pointer), in one run. Prints a table:
#   per-sample cost  stk: BPF run time per sample (kernel.bpf_stats_enabled)
#                    plus stk's own CPU time (unwinding, counting) per sample;
#                    perf: perf record's CPU time per sample (its in-kernel
#                    copy shows in the slowdown instead)
#   slowdown         wall time of a fixed amount of work with the tool
#                    sampling every CPU / without
# medians of REPEAT runs. Needs root; installs linux-perf and time with apt.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
SECS=${SECS:-5}
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT

bench_install bench/unwind linux-perf time
gcc -O2 -fomit-frame-pointer -o "$tmp/manystacks" "$root/bench/manystacks.c"
sysctl -qw kernel.bpf_stats_enabled=1

cpu_ms() { sed 's/.*) //' /proc/"$1"/stat | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($12 + $13) * 1000 / hz }'; }

# per-sample cost in us: TOOL HZ -> one number. Measured over SECS after a
# second of warm-up, so start-up and the final symbolization are not in it.
cost_once() {
    local tool=$1 hz=$2 tp ns0 runs0 ns1 runs1 cpu0 cpu1 t0 t1 samples
    "$tmp/manystacks" $((SECS + 3)) >/dev/null & local w1=$!
    "$tmp/manystacks" $((SECS + 3)) >/dev/null & local w2=$!
    t0=$(date +%s%N)
    case $tool in
        stk-fp|stk-dwarf)
            "$STK" profile --unwind "${tool#stk-}" -F "$hz" -f >"$tmp/out" 2>"$tmp/err" & tp=$! ;;
        perf-fp)
            perf record -F "$hz" -g -a -o "$tmp/perf.data" >"$tmp/out" 2>"$tmp/err" & tp=$! ;;
        perf-dwarf)
            perf record -F "$hz" --call-graph dwarf -a -o "$tmp/perf.data" >"$tmp/out" 2>"$tmp/err" & tp=$! ;;
    esac
    sleep 1
    cpu0=$(cpu_ms "$tp"); read -r ns0 runs0 < <(bpf_ns_runs "$tp" stk_profile)
    sleep "$SECS"
    cpu1=$(cpu_ms "$tp"); read -r ns1 runs1 < <(bpf_ns_runs "$tp" stk_profile)
    t1=$(date +%s%N)
    kill -INT "$tp"; wait "$tp" 2>/dev/null
    kill -9 $w1 $w2 2>/dev/null; wait $w1 $w2 2>/dev/null
    case $tool in
        stk-*) samples=$((runs1 - runs0)) ;;
        # perf says how many samples it wrote in all; the window's share of them
        *) samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/err" | tail -1)
           samples=$(awk -v n="${samples:-0}" -v w="$SECS" -v t="$(( (t1 - t0) / 1000000 ))" 'BEGIN { printf "%d", n * w * 1000 / t }') ;;
    esac
    awk -v ns="$((ns1 - ns0))" -v cpu="$((cpu1 - cpu0))" -v n="$samples" \
        'BEGIN { if (n > 0) printf "%.1f\n", (ns / 1000 + cpu * 1000) / n; else print "n/a" }'
}

work_ms() { local s e; s=$(date +%s%N); "$tmp/manystacks" -n 20000 >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
slow_once() { # TOOL HZ -> ms of the fixed work under it
    local tool=$1 hz=$2 tp
    case $tool in
        none) work_ms; return ;;
        stk-fp|stk-dwarf) "$STK" profile --unwind "${tool#stk-}" -F "$hz" -f >/dev/null 2>&1 & tp=$! ;;
        perf-fp) perf record -F "$hz" -g -a -o "$tmp/perf.data" >/dev/null 2>&1 & tp=$! ;;
        perf-dwarf) perf record -F "$hz" --call-graph dwarf -a -o "$tmp/perf.data" >/dev/null 2>&1 & tp=$! ;;
    esac
    sleep 1
    work_ms
    kill -INT "$tp"; wait "$tp" 2>/dev/null
}

tools="stk-fp stk-dwarf perf-fp perf-dwarf"
declare -A cost slow
base=()
# Each slowdown is against a run without any tool just before it: other load on
# the machine changes between runs, the ratio of neighbours much less.
for hz in 99 999; do
    for t in $tools; do
        c=() s=()
        for _ in $(seq "$REPEAT"); do
            c+=("$(cost_once "$t" "$hz")")
            alone=$(slow_once none 0); base+=("$alone")
            s+=("$(awk -v a="$(slow_once "$t" "$hz")" -v b="$alone" 'BEGIN { if (b > 0) printf "%.3f\n", a / b }')")
        done
        cost[$t,$hz]=$(printf '%s\n' "${c[@]}" | grep -v n/a | median)
        slow[$t,$hz]=$(printf '%s\n' "${s[@]}" | grep . | median)
    done
done
base_ms=$(printf '%s\n' "${base[@]}" | median)

name() { case $1 in stk-fp) echo "stk profile --unwind fp" ;; stk-dwarf) echo "stk profile --unwind dwarf" ;;
                     perf-fp) echo "perf record -g" ;; perf-dwarf) echo "perf record --call-graph dwarf" ;; esac; }
printf '\n%-34s %6s %18s %10s\n' "tool (2 no-FP burners, all CPUs)" "Hz" "us per sample" "slowdown"
for hz in 99 999; do
    for t in $tools; do
        printf '%-34s %6s %18s %10s\n' "$(name "$t")" "$hz" "${cost[$t,$hz]}" "${slow[$t,$hz]}"
    done
done
printf '(fixed work alone: %s ms, median; medians of %s runs; load average: %s)\n' "$base_ms" "$REPEAT" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
