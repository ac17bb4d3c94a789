#!/bin/bash
# bench/eventlog: what recording every event costs over aggregating alone.
# Debian's MariaDB under sysbench oltp_read_write (bench/mariadb_env.sh):
# profile -F 99 and offcputime, system-wide, each without and with
# -o run.parquet, interleaved with runs of no tool, medians of REPEAT.
# Prints one table:
#   throughput     transactions/s with the tool / without any
#   BPF ns/ev      run_time_ns / run_cnt of its programs (bpf_stats)
#   stk CPU        stk's CPU time as a share of the run (of one CPU)
#   events, B/ev   rows recorded (median run) and file bytes per row
#   lost           events the ring buffer had no room for (all runs)
#   DuckDB         whether DuckDB's count(*) equals the rows stk said it recorded, every run
# then stk record of cpu, offcpu, rss, block, send, recv and state together
# against the applets recording the same kinds alone, added up (the goal:
# together costs no more), each kind's bytes per event (recorded alone), the
# events of each kind in one run together; then
# perf record -g -F 99 -a on the same load (its bytes per sample), and
# the event log writer alone (bench/eventlog_bench.c: events per second on
# one core, best of 3; an hour at 10,000 events a second: bytes per event
# and peak RSS), and a real capture's peak RSS. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
SECS=${SECS:-20}
HOUR=${HOUR:-36000000}
NODE_DIR=$BUILD/node
make -C "$root" --no-print-directory BUILD="$BUILD" "$BUILD/bench/eventlog_bench" >/dev/null || exit 1
BENCH_NAME=bench/eventlog MARIADB_PKGS="linux-perf"
. "$root/bench/mariadb_env.sh"

if [ ! -d "$NODE_DIR/node_modules/@duckdb/node-api" ]; then
    npm install --prefix "$NODE_DIR" --no-audit --no-fund @duckdb/node-api >/dev/null 2>&1 ||
        echo "bench/eventlog: npm install @duckdb/node-api failed: no DuckDB column" >&2
fi
cp "$root/tests/integration/duckdb_query.mjs" "$NODE_DIR/" 2>/dev/null
duckdb_count() { node "$NODE_DIR/duckdb_query.mjs" "select count(*) from read_parquet('$1')" 2>/dev/null; }

declare -A TOOL RE T C CPU N BPE LOST DUCK
# stk record's goal (issue 32): these kinds together against the applets that record them alone
GOAL=cpu:99,offcpu,rss,block,send,recv,state
RES="stk resources -e rss,block,send,recv -o run.parquet" TS="stk threadstate -a -o run.parquet"
REC="stk record -e $GOAL -o run.parquet"
order=("none" "stk profile -F 99" "stk profile -F 99 -o run.parquet" "stk offcputime" "stk offcputime -o run.parquet"
       "$RES" "$TS" "$REC")
TOOL[none]=""
TOOL[stk profile -F 99]="$STK profile -F 99"
TOOL[stk profile -F 99 -o run.parquet]="$STK profile -F 99 -o $tmp/run.parquet"
TOOL[stk offcputime]="$STK offcputime"
TOOL[stk offcputime -o run.parquet]="$STK offcputime -o $tmp/run.parquet"
TOOL[$RES]="$STK resources -e rss,block,send,recv -o $tmp/run.parquet"
TOOL[$TS]="$STK threadstate -a -o $tmp/run.parquet"
TOOL[$REC]="$STK record -v -e $GOAL -o $tmp/run.parquet"
for label in "${order[@]:1}"; do
    case $label in
    *record*) RE[$label]="stk_profile|stk_offcpu|stk_res_|stk_ts_" ;;
    *resources*) RE[$label]=stk_res_ ;;
    *threadstate*) RE[$label]=stk_ts_ ;;
    *profile*) RE[$label]=stk_profile ;;
    *) RE[$label]=stk_offcpu ;;
    esac
done

sysctl -qw kernel.bpf_stats_enabled=1
for rep in $(seq "$REPEAT"); do
    for label in "${order[@]}"; do
        if [ -z "${TOOL[$label]}" ]; then
            T[$label]+="$(tps "$SECS") "
            continue
        fi
        rm -f "$tmp/run.parquet"
        ${TOOL[$label]} >/dev/null 2>"$tmp/tool.err" & tp=$!
        if ! wait_attached $tp; then
            echo "bench/eventlog: $label did not attach: $(head -1 "$tmp/tool.err")" >&2
            kill -9 $tp; wait $tp 2>/dev/null; continue
        fi
        c0=$(cpu_ns $tp); t0=$(date +%s%N)
        T[$label]+="$(tps "$SECS") "
        c1=$(cpu_ns $tp); t1=$(date +%s%N)
        C[$label]+="$(bpf_cost $tp "${RE[$label]}") "
        CPU[$label]+="$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", c * 100 / t }') "
        kill -INT $tp; wait $tp 2>/dev/null
        if [[ $label == *parquet ]]; then
            n=$(sed -n 's/^[a-z]*: \([0-9]*\) events recorded.*/\1/p' "$tmp/tool.err")
            N[$label]+="$n "
            BPE[$label]+="$(awk -v b="$(stat -c %s "$tmp/run.parquet")" -v n="$n" 'BEGIN { if (n) printf "%.2f", b / n }') "
            LOST[$label]=$(( ${LOST[$label]:-0} + $(sed -n 's/^WARNING: \([0-9]*\) events lost.*/\1/p' "$tmp/tool.err" | head -1 | grep . || echo 0) ))
            [ "$(duckdb_count "$tmp/run.parquet")" = "$n" ] && DUCK[$label]+="y" || DUCK[$label]+="n"
            # the combined run: its events per kind and their losses (-v says each), the last run's kept
            [[ $label == *record* ]] && grep '^record: [a-z-]*: [0-9]* events, [0-9]* lost' "$tmp/tool.err" >"$tmp/kinds.txt"
        fi
    done
done
sysctl -qw kernel.bpf_stats_enabled=0
base=$(printf '%s\n' ${T[none]} | median)

# bytes per event of each kind, recorded alone under the same load
declare -A KB
KINDS_ALONE="cpu:99 offcpu rss block send recv state syscall iorq"
for k in $KINDS_ALONE; do
    rm -f "$tmp/kind.parquet"
    "$STK" record -e "$k" -o "$tmp/kind.parquet" >/dev/null 2>"$tmp/kind.err" & tp=$!
    wait_attached $tp || { kill -9 $tp; wait $tp 2>/dev/null; KB[$k]="-"; continue; }
    tps "$SECS" >/dev/null
    kill -INT $tp; wait $tp 2>/dev/null
    n=$(sed -n 's/^[a-z]*: \([0-9]*\) events recorded.*/\1/p' "$tmp/kind.err")
    KB[$k]=$(awk -v b="$(stat -c %s "$tmp/kind.parquet" 2>/dev/null || echo 0)" -v n="${n:-0}" \
        'BEGIN { if (n) printf "%.1f (%d events)", b / n, n; else print "-" }')
done

# perf record -g on the same load: bytes of perf.data per sample
perf record -q -g -F 99 -a -o "$tmp/perf.data" -- sleep "$SECS" >/dev/null 2>&1 &
pp=$!
tps "$((SECS - 1))" >/dev/null
wait $pp
perf_samples=$(perf script -F comm -i "$tmp/perf.data" 2>/dev/null | wc -l)
perf_bps=$(awk -v b="$(stat -c %s "$tmp/perf.data")" -v n="$perf_samples" 'BEGIN { if (n) printf "%.1f", b / n }')

# the writer alone, and an hour at 10,000 events a second
best=0
for i in $(seq 3); do
    line=$("$BUILD/bench/eventlog_bench" "$tmp/bench.parquet" 4000000 ring)
    rate=$(awk -v l="$line" 'BEGIN { split(l, f, " "); printf "%d", f[2] / f[4] }')
    [ "$rate" -gt "$best" ] && best=$rate
done
hour=$("$BUILD/bench/eventlog_bench" "$tmp/hour.parquet" "$HOUR" live)
rm -f "$tmp/bench.parquet" "$tmp/hour.parquet"

# a real capture's peak memory: offcputime recording for a long run
# (stopped by SIGINT once its peak is read: a duration could end it before)
"$STK" offcputime -o "$tmp/long.parquet" >/dev/null 2>"$tmp/long.err" & tp=$!
wait_attached $tp
tps "$((SECS * 3))" >/dev/null
hwm=$(status_kb "$tp" VmHWM)
kill -INT $tp
wait $tp
long_n=$(sed -n 's/^[a-z]*: \([0-9]*\) events recorded.*/\1/p' "$tmp/long.err")

printf '\nMariaDB %s under sysbench oltp_read_write (4 threads, 4 x 20000 rows), %d s runs, median of %d; %d CPUs\n' \
    "$(mariadbd --version | awk '{ print $3 }')" "$SECS" "$REPEAT" "$(nproc)"
printf '%-36s %10s %10s %8s %9s %7s %6s %7s\n' "tool" "throughput" "BPF ns/ev" "stk CPU" "events" "B/ev" "lost" "DuckDB"
printf '%-36s %10s\n' "none ($(printf '%.0f' "$base") tps)" "x1.00"
for label in "${order[@]:1}"; do
    t=$(printf '%s\n' ${T[$label]:-} | median)
    printf '%-36s %10s %10s %7s%% %9s %7s %6s %7s\n' "$label" "x$(ratio "$t" "$base")" \
        "$(printf '%s\n' ${C[$label]:-} | grep . | median)" "$(printf '%s\n' ${CPU[$label]:-} | median)" \
        "$(printf '%s\n' ${N[$label]:-} | grep . | median | sed 's/^n\/a$/-/')" \
        "$(printf '%s\n' ${BPE[$label]:-} | grep . | median | sed 's/^n\/a$/-/')" \
        "$([[ $label == *parquet ]] && echo "${LOST[$label]:-0}" || echo -)" "${DUCK[$label]:--}"
done
printf '%-36s %10s %10s %8s %9s %7s\n' "perf record -g -F 99 -a" "" "" "" "$perf_samples" "$perf_bps"
med() { printf '%s\n' ${T[$1]:-} | median; }
# What a tool costs: the throughput it takes away (1 - its ratio, in %), and stk's CPU (median, % of one CPU).
lost_pct() { awk -v r="$(ratio "$(med "$1")" "$base")" 'BEGIN { if (r ~ /^[0-9.]+$/) printf "%.1f", (1 - r) * 100; else print "n/a" }'; }
cpu_pct() { printf '%s\n' ${CPU[$1]:-} | median; }
sum() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+$/) s += $i } END { printf "%.1f", s }'; }
alone=("stk profile -F 99 -o run.parquet" "stk offcputime -o run.parquet" "$RES" "$TS")
printf '\nstk record -e %s -o run.parquet against the applets recording those kinds alone, added up\n' "$GOAL"
printf '(goal: together costs no more than the sum)\n'
printf '  throughput lost: together %s%%; alone %s%% (profile %s + offcputime %s + resources %s + threadstate %s)\n' \
    "$(lost_pct "$REC")" "$(for l in "${alone[@]}"; do lost_pct "$l"; printf ' '; done | sum)" \
    "$(lost_pct "${alone[0]}")" "$(lost_pct "${alone[1]}")" "$(lost_pct "${alone[2]}")" "$(lost_pct "${alone[3]}")"
printf '  stk CPU: together %s%%; alone %s%% (profile %s + offcputime %s + resources %s + threadstate %s)\n' \
    "$(cpu_pct "$REC")" "$(for l in "${alone[@]}"; do cpu_pct "$l"; printf ' '; done | sum)" \
    "$(cpu_pct "${alone[0]}")" "$(cpu_pct "${alone[1]}")" "$(cpu_pct "${alone[2]}")" "$(cpu_pct "${alone[3]}")"
printf '  events of each kind together (the last run; lost counted per kind):\n'
sed 's/^record: /    /' "$tmp/kinds.txt" 2>/dev/null
printf 'bytes per event of each kind, recorded alone (%d s):\n' "$SECS"
for k in $KINDS_ALONE; do printf '    %-8s %s\n' "${k%%:*}" "${KB[$k]}"; done
printf '\nthroughput with -o run.parquet over without (goal: x0.980 or more): profile x%s, offcputime x%s\n' \
    "$(ratio "$(med "stk profile -F 99 -o run.parquet")" "$(med "stk profile -F 99")")" \
    "$(ratio "$(med "stk offcputime -o run.parquet")" "$(med "stk offcputime")")"
printf '\nevent log writer, one core: %s events/s (best of 3, 4 M events, 20 columns)\n' "$best"
printf 'an hour at 10,000 events/s: %s\n' "$(awk -v l="$hour" 'BEGIN { split(l, f, " ");
    printf "%d events in %.1f s, %.2f bytes/event, peak RSS %.1f MB", f[2], f[4], f[6] / f[2], f[8] / 1024 }')"
printf 'stk offcputime -o run.parquet for %d s under the load: %s events, peak RSS %d MB\n' "$((SECS * 3))" \
    "${long_n:-?}" "$((${hwm:-0} / 1024))"
