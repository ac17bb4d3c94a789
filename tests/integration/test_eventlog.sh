#!/bin/bash
# needs: root (profile, offcputime and stackcount record events through BPF)
# The event log against tests/workloads/phases (no frame pointers): phases at
# known wall-clock times (burn in phase_a_burn, sleep in phase_b_sleep, burn
# in phase_c_burn) and requests with known ids (handle_request(ID) ->
# do_query(ID * 100), a USDT pair around each). DuckDB (npm @duckdb/node-api)
# reads every Parquet file written here and its answers are asserted (arrow-rs,
# DataFusion's reader, and hyparquet read the main ones alike): events
# in each window belong to that window's function, span labels sit on
# exactly the events inside their span, off-CPU time per window is within
# 10% of what the workload slept, count(*) is what stk said it recorded.
# `stk report` over a whole recording prints what the capture printed, in
# every format; its windows, spans and filters narrow it; bad input is one
# line and exit 2. The timelines: speedscope's schema (its npm package) accepts
# the file and speedscope's page opens it in Debian's headless Chromium
# (playwright-core); the trace nests per thread.
SUITE=eventlog
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
NODE_DIR=$BUILD/node
tmp=$(mktemp -d)
workloads_begin
# Wider than one sample period and the wake-up of a sleep, so edges never decide.
MARGIN_NS=50000000
PHASE=1.0
REQUESTS=10

# --- tools from npm: DuckDB, speedscope, playwright-core, ajv, parquet-wasm (arrow-rs, DataFusion's
# Parquet reader) with apache-arrow, hyparquet; Debian's chromium ---
need_npm() {
    [ -d "$NODE_DIR/node_modules/$1" ] ||
        npm install --prefix "$NODE_DIR" --no-audit --no-fund "$1" >>"$tmp/npm.log" 2>&1
}
for p in @duckdb/node-api speedscope playwright-core ajv parquet-wasm apache-arrow hyparquet hyparquet-compressors; do
    need_npm "$p" || { fail tools_npm "npm install $p failed: $(tail -3 "$tmp/npm.log" | tr '\n' ' ')"; exit 1; }
done
if [ ! -x /usr/bin/chromium ]; then
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; } \
        >"$tmp/apt.log" 2>&1 || { fail tools_chromium "apt-get install chromium failed: $(tail -3 "$tmp/apt.log" | tr '\n' ' ')"; exit 1; }
fi
for f in duckdb_query speedscope_check trace_check readers_check; do cp "$ROOT/tests/integration/$f.mjs" "$NODE_DIR/"; done
q() { node "$NODE_DIR/duckdb_query.mjs" "$1" 2>&1; }

# phases_run NAME STK_ARGS...: runs the phases workload under `stk APPLET ARGS -p PID`, starting
# its phases once stk is tracing and stopping stk with SIGINT when they are done. Leaves
# $tmp/NAME.phases (the workload's times), .err (stk's stderr), RC (stk's exit status).
phases_run() {
    local name=$1 go=$tmp/$1.go sp i
    shift
    start_workload "$W/phases" "$go" "$PHASE" "$REQUESTS"
    "$STK" "$@" -v -p "$WPID" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    sp=$!
    # until stk is tracing (60 s at most: a loaded host took it past 15 s, and the first request went unseen)
    for i in $(seq 1200); do grep -qs 'tracing .* after start' "$tmp/$name.err" && break
                             kill -0 "$sp" 2>/dev/null || break; sleep 0.05; done
    touch "$go"
    for i in $(seq 400); do grep -qs '^done' "$tmp"/ready.* && break; sleep 0.05; done
    sleep 0.2
    kill -INT "$sp"
    wait "$sp"
    RC=$?
    grep -h '^\(phase\|request\|done\)' "$tmp"/ready.* >"$tmp/$name.phases"
    rm -f "$tmp"/ready.*
    stop_workloads
}
# times NAME PHASE, times NAME request ID: "START END" (ns)
times() {
    if [ "$2" = request ]; then
        awk -v id="$3" '$1 == "request" && $2 == id { print $3, $4 }' "$tmp/$1.phases"
    else
        awk -v p="$2" '$1 == "phase" && $2 == p { print $3, $4 }' "$tmp/$1.phases"
    fi
}
# recorded NAME: the count stk said it recorded
recorded() { sed -n 's/^[a-z]*: \([0-9]*\) events recorded.*/\1/p' "$tmp/$1.err"; }
# iso NS: the instant as stk report --from/--to take it
iso() { printf '%s.%09dZ' "$(date -u -d @$(($1 / 1000000000)) +%Y-%m-%dT%H:%M:%S)" $(($1 % 1000000000)); }
# request_table NAME: the requests as a DuckDB VALUES list (id, start_us, end_us)
request_table() {
    awk '$1 == "request" { printf "%s(%s, %.0f, %.0f)", sep, $2, int($3 / 1000), int($4 / 1000); sep = ", " }' "$tmp/$1.phases"
}

P="$W/phases"

# ===== profile: windows, spans, counts, and report equal to the capture =====
phases_run prof profile -F 199 --span "$P:handle_request:arg0" -o "$tmp/prof.parquet" -o "$tmp/prof.folded" \
    -o "$tmp/prof.txt" -o "$tmp/prof.pb.gz" -o "$tmp/prof.svg" -o "$tmp/prof.pmp" \
    -o "$tmp/prof.speedscope.json" -o "$tmp/prof.trace.json"
expect_eq profile_rc "$RC" 0
expect_eq profile_workload_done "$(grep -c '^done' "$tmp/prof.phases")" 1
F="read_parquet('$tmp/prof.parquet')"
n=$(recorded prof)
expect_eq profile_count_is_recorded "$(q "select count(*) from $F")" "$n"
expect_contains profile_none_lost "$(cat "$tmp/prof.err")" "events recorded, none lost"
[ "${n:-0}" -gt 150 ] && pass profile_events_many || fail profile_events_many "only ${n:-0} events"
expect_eq profile_metadata_count "$(q "select decode(value) from parquet_kv_metadata('$tmp/prof.parquet') where decode(key) = 'stk.events'")" "$n"
expect_eq profile_columns "$(q "select string_agg(column_name || ' ' || column_type, ', ') from (describe select * from $F)")" \
    "time TIMESTAMP WITH TIME ZONE, pid INTEGER, tid INTEGER, comm VARCHAR, cpu INTEGER, event VARCHAR, weight BIGINT, unit VARCHAR, stack VARCHAR, span VARCHAR, stack_id BIGINT, state VARCHAR, frames VARCHAR, syscall VARCHAR, syscall_nr INTEGER, wchan VARCHAR, file VARCHAR, device VARCHAR, bytes BIGINT, op VARCHAR, host VARCHAR"
expect_eq profile_events_cpu "$(q "select string_agg(distinct event || '/' || unit || '/' || weight, ',') from $F where event <> 'span'")" "cpu/count/1"
# each window's samples are that window's function (margins keep edges out)
for ph in burn_a:phase_a_burn burn_c:phase_c_burn; do
    read -r s e <<<"$(times prof "${ph%%:*}")"
    got=$(q "select count(*) filter (where stack like '%main;${ph#*:};spin_for%') || ' ' || count(*) from $F
             where event = 'cpu' and epoch_us(time) between $(((s + MARGIN_NS) / 1000)) and $(((e - MARGIN_NS) / 1000))")
    all=${got#* }
    # at least a quarter of 199 Hz: the 2-CPU host is shared
    [ "${got%% *}" = "$all" ] && [ "$all" -ge 45 ] && pass "profile_window_${ph%%:*}" ||
        fail "profile_window_${ph%%:*}" "in ${ph%%:*}: ${got%% *} of $all samples in ${ph#*:} (want all, at least 45)"
done
read -r s e <<<"$(times prof sleep_b)"
expect_eq profile_window_sleep_b_empty "$(q "select count(*) from $F where event = 'cpu' and epoch_us(time) between $(((s + MARGIN_NS) / 1000)) and $(((e - MARGIN_NS) / 1000))")" 0
# span labels: on exactly the samples inside their request
R="(values $(request_table prof)) r(id, s, e)"
expect_eq profile_span_rows "$(q "select count(*) from $F where event = 'span'")" "$REQUESTS"
expect_eq profile_span_rows_match "$(q "select count(*) from $F f join $R on f.span = 'handle_request=' || r.id
    where f.event = 'span' and epoch_us(f.time) between r.s - 1000 and r.s + 1000 and f.weight between (r.e - r.s) * 1000 - 2000000 and (r.e - r.s) * 1000")" "$REQUESTS"
expect_eq profile_spans_inside "$(q "select count(*) from $F f where event = 'cpu' and span is not null
    and not exists (select 1 from $R where f.span = 'handle_request=' || r.id and epoch_us(f.time) between r.s and r.e)")" 0
expect_eq profile_spans_all_labelled "$(q "select count(*) from $F f, $R where event = 'cpu' and epoch_us(f.time) between r.s + 1000 and r.e - 1000
    and f.stack like '%handle_request%' and (f.span is null or f.span <> 'handle_request=' || r.id)")" 0
labelled=$(q "select count(*) from $F where event = 'cpu' and span like 'handle_request=%'")
[ "${labelled:-0}" -ge "$REQUESTS" ] && pass profile_spans_labelled || fail profile_spans_labelled "only ${labelled:-0} samples carry a span"
expect_eq profile_no_span_outside "$(q "select count(*) from $F where event = 'cpu' and stack like '%phase_%' and span is not null")" 0
# the stack column is the folded line without its task: the folded file's stacks are exactly them
expect_eq profile_stack_is_folded "$(q "select count(*) from (select distinct comm || ';' || stack as line from $F where event = 'cpu')
    where line not in (select regexp_replace(column0, ' [0-9]+$', '') from read_csv('$tmp/prof.folded', header = false, delim = '\t', columns = {'column0': 'VARCHAR'}))")" 0
# stk report over the whole recording: what the capture printed, in every format
for ext in folded txt pb.gz svg pmp; do
    run_capture "$STK" report "$tmp/prof.parquet" -o "$tmp/report.$ext"
    if [ "$RC" -eq 0 ] && cmp -s "$tmp/prof.$ext" "$tmp/report.$ext"; then pass "report_equals_capture_$ext"
    else fail "report_equals_capture_$ext" "rc=$RC $ERR $(diff "$tmp/prof.$ext" "$tmp/report.$ext" 2>&1 | head -3 | tr '\n' ' ')"; fi
done
run_capture "$STK" report "$tmp/prof.parquet"
expect_eq report_stdout_text "$OUT" "$(cat "$tmp/prof.txt")"
# its windows: absolute and relative times, one phase each
read -r s e <<<"$(times prof burn_a)"
run_capture "$STK" report "$tmp/prof.parquet" -f --from "$(iso $((s + MARGIN_NS)))" --to "$(iso $((e - MARGIN_NS)))"
expect_eq report_window_absolute "$RC:$(printf '%s\n' "$OUT" | grep -vc 'main;phase_a_burn;spin_for')" "0:0"
first=$(q "select epoch_ns(min(time)) from $F")
read -r s e <<<"$(times prof burn_c)"
rel_from=$(awk -v a="$s" -v f="$first" -v m="$MARGIN_NS" 'BEGIN { printf "%.3f", (a + m - f) / 1e9 }')
rel_to=$(awk -v a="$e" -v f="$first" -v m="$MARGIN_NS" 'BEGIN { printf "%.3f", (a - m - f) / 1e9 }')
run_capture "$STK" report "$tmp/prof.parquet" -f --from "$rel_from" --to "$rel_to"
expect_eq report_window_relative "$RC:$(printf '%s\n' "$OUT" | grep -vc 'main;phase_c_burn;spin_for')" "0:0"
c_samples=$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s + 0 }')
expect_eq report_window_count "$c_samples" "$(q "select count(*) from $F where event = 'cpu' and epoch_ns(time) >= $first + $rel_from * 1e9 and epoch_ns(time) < $first + $rel_to * 1e9")"
# its span filter: one request, every request, no span
run_capture "$STK" report "$tmp/prof.parquet" -f --span handle_request=3
expect_eq report_span_one "$RC:$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s + 0 }')" \
    "0:$(q "select count(*) from $F where event = 'cpu' and span = 'handle_request=3'")"
run_capture "$STK" report "$tmp/prof.parquet" -f --span handle_request
expect_eq report_span_all "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s + 0 }')" "$labelled"
run_capture "$STK" report "$tmp/prof.parquet" -f -t 1
expect_eq report_tid_filter "$RC:$OUT" "0:"
run_capture "$STK" report "$tmp/prof.parquet" --event span -f
expect_eq report_event_span "$RC:$(printf '%s\n' "$OUT" | wc -l)" "0:1"
# pprof from the recording carries each span as a sample label
run_capture "$STK" report "$tmp/prof.parquet" --span handle_request=5 -o "$tmp/span5.pb.gz"
expect_eq report_pprof_span_label "$(gzip -dc "$tmp/span5.pb.gz" | grep -c 'handle_request=5')" 1
expect_eq capture_pprof_span_labels "$(gzip -dc "$tmp/prof.pb.gz" | grep -ao 'handle_request=[0-9]*' | sort -u | wc -l)" "$REQUESTS"

# ===== timelines from the capture and from report =====
run_capture "$STK" report "$tmp/prof.parquet" --format trace -o "$tmp/report.trace.json"
expect_eq timeline_trace_report_equals_capture "$RC:$(cmp -s "$tmp/prof.trace.json" "$tmp/report.trace.json" && echo same)" "0:same"
tc=$(node "$NODE_DIR/trace_check.mjs" "$tmp/prof.trace.json" 2>&1)
for want in "json ok" "ordered yes" "balanced yes" "named yes" "threads 1" "cat span $REQUESTS"; do
    expect_contains "trace_${want// /_}" "$tc" "$want"
done
# runs of samples merge: far fewer slices of main than samples in main
main_runs=$(printf '%s\n' "$tc" | sed -n 's/^runs main //p')
main_samples=$(q "select count(*) from $F where event = 'cpu' and stack like '%;main;%'")
[ "${main_runs:-0}" -ge 1 ] && [ "$main_runs" -lt "$main_samples" ] && pass trace_samples_merged ||
    fail trace_samples_merged "${main_runs:-0} slices of main for $main_samples samples in it"
read -r s e <<<"$(times prof request 4)"
expect_eq trace_span_times "$(printf '%s\n' "$tc" | awk -v s="$s" -v e="$e" -v f="$(q "select epoch_ns(min(time)) from $F where event = 'cpu' or event = 'span'")" '
    $1 == "slice" && $3 == "handle_request=4" { d1 = f / 1000 + $4 - s / 1000; d2 = f / 1000 + $5 - e / 1000; print (d1 < 2000 && d1 > -2000 && d2 < 2000 && d2 > -2000) ? "close" : "off " d1 " " d2 }')" close
# speedscope_page FILE: speedscope's page (its npm package's release, served from a directory
# with FILE) opens FILE in headless Chromium; sets SC to what speedscope_check printed
speedscope_page() {
    local dir=$tmp/speedscope.$RANDOM port=$((20000 + RANDOM % 20000)) srv i
    mkdir -p "$dir"
    ln -s "$NODE_DIR"/node_modules/speedscope/dist/release/* "$dir/"
    cp "$1" "$dir/"
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >"$tmp/http.log" 2>&1 &
    srv=$!
    for i in $(seq 100); do curl -sf "http://127.0.0.1:$port/index.html" >/dev/null 2>&1 && break; sleep 0.05; done
    SC=$(timeout 120 node "$NODE_DIR/speedscope_check.mjs" "$dir/$(basename "$1")" "http://127.0.0.1:$port" 2>&1)
    kill "$srv"
    wait "$srv" 2>/dev/null
}
speedscope_page "$tmp/prof.speedscope.json"
sc=$SC
expect_contains speedscope_schema "$sc" "schema ok"
expect_contains speedscope_page_title "$sc" "title "
expect_contains speedscope_page_shows_profile "$sc" "shown phases ("
expect_contains speedscope_page_no_errors "$sc" "errors 0"
expect_eq speedscope_profiles "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(p['type'] for p in d['profiles']))" "$tmp/prof.speedscope.json")" "sampled evented"
run_capture "$STK" report "$tmp/prof.parquet" --format speedscope -o "$tmp/report.speedscope.json"
expect_eq timeline_speedscope_report_equals_capture "$RC:$(cmp -s "$tmp/prof.speedscope.json" "$tmp/report.speedscope.json" && echo same)" "0:same"

# ===== offcputime: off-CPU time per window, innermost spans, report equal to the capture =====
phases_run off offcputime --span "$P:handle_request:arg0" --span "$P:do_query:arg0" -o "$tmp/off.parquet" \
    -o "$tmp/off.folded" -o "$tmp/off.txt" -o "$tmp/off.pb.gz" -o "$tmp/off.trace.json" -o "$tmp/off.speedscope.json"
expect_eq offcpu_rc "$RC" 0
F="read_parquet('$tmp/off.parquet')"
expect_eq offcpu_count_is_recorded "$(q "select count(*) from $F")" "$(recorded off)"
read -r s e <<<"$(times off sleep_b)"
slept=$(q "select coalesce(sum(least(epoch_ns(time) + weight, $e) - greatest(epoch_ns(time), $s)), 0) from $F
    where event = 'offcpu' and stack like '%phase_b_sleep%' and epoch_ns(time) < $e and epoch_ns(time) + weight > $s")
within 10 "$slept" $((e - s)) && pass offcpu_window_sleep_b_10pct || fail offcpu_window_sleep_b_10pct "slept $slept ns of $((e - s))"
run_capture "$STK" report "$tmp/off.parquet" -f --from "$(iso "$s")" --to "$(iso "$e")"
us=$(printf '%s\n' "$OUT" | grep 'phase_b_sleep' | awk '{ s += $NF } END { print s + 0 }')
within 10 "$us" $(((e - s) / 1000)) && pass report_offcpu_window_10pct || fail report_offcpu_window_10pct "$us us of $(((e - s) / 1000))"
# asleep in nanosleep: S, but for a preemption on the way in or out
expect_eq offcpu_state_asleep "$(q "select sum(weight) filter (where state = 'S') > 0.9 * sum(weight) from $F where stack like '%phase_b_sleep%'")" true
read -r s e <<<"$(times off burn_a)"
expect_eq offcpu_window_burn_a_quiet "$(q "select count(*) from $F where event = 'offcpu' and stack like '%phase_%sleep%' and epoch_ns(time) between $((s + MARGIN_NS)) and $((e - MARGIN_NS))")" 0
R="(values $(request_table off)) r(id, s, e)"
expect_eq offcpu_innermost_span "$(q "select count(*) filter (where span = 'do_query=' || r.id * 100) || ' ' || count(*) from $F f, $R
    where f.event = 'offcpu' and f.stack like '%query_wait%' and epoch_us(f.time) between r.s and r.e")" "$REQUESTS $REQUESTS"
expect_eq offcpu_span_rows "$(q "select count(*) filter (where span like 'handle_request=%') || ' ' || count(*) filter (where span like 'do_query=%') from $F where event = 'span'")" "$REQUESTS $REQUESTS"
for ext in folded txt pb.gz; do
    run_capture "$STK" report "$tmp/off.parquet" -o "$tmp/report-off.$ext"
    if [ "$RC" -eq 0 ] && cmp -s "$tmp/off.$ext" "$tmp/report-off.$ext"; then pass "report_equals_offcputime_$ext"
    else fail "report_equals_offcputime_$ext" "rc=$RC $ERR $(diff "$tmp/off.$ext" "$tmp/report-off.$ext" 2>&1 | head -3 | tr '\n' ' ')"; fi
done
tc=$(node "$NODE_DIR/trace_check.mjs" "$tmp/off.trace.json" 2>&1)
for want in "ordered yes" "balanced yes" "named yes" "cat span $((2 * REQUESTS))"; do
    expect_contains "offcpu_trace_${want// /_}" "$tc" "$want"
done
expect_contains offcpu_trace_intervals "$tc" "slice offcpu offcpu S"
speedscope_page "$tmp/off.speedscope.json"
sc=$SC
expect_contains offcpu_speedscope_schema "$sc" "schema ok"
expect_contains offcpu_speedscope_page_no_errors "$sc" "errors 0"
expect_contains offcpu_speedscope_page_shows_profile "$sc" "shown phases ("

# ===== the same files through arrow-rs (DataFusion's reader) and hyparquet =====
for rec in prof off; do
    F="read_parquet('$tmp/$rec.parquet')"
    want="rows $(q "select count(*) || ' weight ' || sum(weight) || ' spans ' || count(span) || ' stacks ' || count(distinct stack) from $F")"
    rd=$(node "$NODE_DIR/readers_check.mjs" "$tmp/$rec.parquet" 2>&1)
    expect_contains "readers_arrow_rs_$rec" "$rd" "arrow-rs $want"
    expect_contains "readers_hyparquet_$rec" "$rd" "hyparquet $want"
    expect_contains "readers_arrow_schema_$rec" "$rd" \
        "schema time:Timestamp<NANOSECOND, UTC>,pid:Int32,tid:Int32,comm:Utf8,cpu:Int32,event:Utf8,weight:Int64,unit:Utf8,stack:Utf8,span:Utf8,stack_id:Int64,state:Utf8,frames:Utf8"
done

# ===== stackcount, and a USDT pair as the span =====
phases_run sc stackcount --span "u:$P:phases:request_start,request_end:arg0" -o "$tmp/sc.parquet" \
    -o "$tmp/sc.folded" -o "$tmp/sc.txt" "$P:request_work"
expect_eq stackcount_rc "$RC" 0
F="read_parquet('$tmp/sc.parquet')"
expect_eq stackcount_count_is_recorded "$(q "select count(*) from $F")" "$(recorded sc)"
expect_eq stackcount_hits "$(q "select count(*) || ' ' || count(distinct span) from $F where event = '$P:request_work'")" "$REQUESTS $REQUESTS"
R="(values $(request_table sc)) r(id, s, e)"
expect_eq stackcount_usdt_spans "$(q "select count(*) from $F f, $R where f.event = '$P:request_work' and epoch_us(f.time) between r.s and r.e
    and f.span = 'request_start=' || r.id")" "$REQUESTS"
expect_eq stackcount_usdt_span_rows "$(q "select count(*) from $F where event = 'span' and span like 'request_start=%'")" "$REQUESTS"
for ext in folded txt; do
    run_capture "$STK" report "$tmp/sc.parquet" -o "$tmp/report-sc.$ext"
    if [ "$RC" -eq 0 ] && cmp -s "$tmp/sc.$ext" "$tmp/report-sc.$ext"; then pass "report_equals_stackcount_$ext"
    else fail "report_equals_stackcount_$ext" "rc=$RC $ERR $(diff "$tmp/sc.$ext" "$tmp/report-sc.$ext" 2>&1 | head -3 | tr '\n' ' ')"; fi
done

# ===== a capture ended by SIGTERM leaves a complete file =====
start_workload "$W/phases" "$tmp/term.go" 5 1
touch "$tmp/term.go"
"$STK" profile -F 99 -p "$WPID" -o "$tmp/term.parquet" >/dev/null 2>"$tmp/term.err" &
sp=$!
sleep 3
kill -TERM "$sp"
wait "$sp"
expect_eq sigterm_rc "$?" 0
stop_workloads
expect_eq sigterm_duckdb_reads "$(q "select count(*) from read_parquet('$tmp/term.parquet')")" "$(recorded term)"
[ "$(recorded term)" -gt 20 ] 2>/dev/null && pass sigterm_events || fail sigterm_events "$(cat "$tmp/term.err")"

# ===== bad input: one line, exit 2, never a crash or a hang =====
bad() { # NAME FILE WANT
    run_capture timeout 10 "$STK" report "$2"
    expect_eq "report_refuses_$1" "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
    expect_contains "report_refuses_$1_why" "$ERR" "$3"
}
printf 'time,pid\n1,2\n' >"$tmp/not.parquet"
bad not_parquet "$tmp/not.parquet" "not a Parquet file"
head -c 3000 "$tmp/prof.parquet" >"$tmp/cut.parquet"
bad truncated "$tmp/cut.parquet" "truncated"
: >"$tmp/empty.parquet"
bad empty "$tmp/empty.parquet" "empty file"
q "copy (select 1::bigint as x) to '$tmp/foreign.parquet' (format parquet)" >/dev/null
bad foreign_schema "$tmp/foreign.parquet" "no column time"
q "copy (select * from read_parquet('$tmp/prof.parquet')) to '$tmp/duck.parquet' (format parquet)" >/dev/null
bad not_stk_written "$tmp/duck.parquet" "column time is not TIMESTAMP"
mkfifo "$tmp/fifo.parquet"
bad fifo "$tmp/fifo.parquet" "not a regular file"
# a directory is its *.parquet: one without any is said so
mkdir "$tmp/nothing"
bad directory "$tmp/nothing" "no *.parquet in this directory"
bad missing "$tmp/none.parquet" "No such file"
run_capture "$STK" report "$tmp/prof.parquet" --from 10:99:00
expect_eq report_bad_time "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
run_capture "$STK" report "$tmp/prof.parquet" --from 3 --to 2
expect_eq report_from_after_to "$RC" 2
run_capture "$STK" report "$tmp/prof.parquet" -o "$tmp/x.parquet"
expect_eq report_refuses_parquet_output "$RC" 2
# a recording with no events: nothing to print, and DuckDB reads it
sleep 30 &
pids+=($!)
"$STK" profile -p $! -o "$tmp/idle.parquet" 1 >/dev/null 2>"$tmp/idle.err"
stop_workloads
expect_eq empty_recording_duckdb "$(q "select count(*) from read_parquet('$tmp/idle.parquet')")" 0
run_capture "$STK" report "$tmp/idle.parquet" -f
expect_eq empty_recording_report "$RC:$OUT" "0:"

# ===== --span that names nothing; recording where the kernel cannot =====
run_capture "$STK" profile --span "$P:no_such_function" -o "$tmp/none.parquet" 1
expect_eq span_unknown_function "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
expect_contains span_unknown_function_why "$ERR" "no function no_such_function"
run_capture "$STK" profile --span "$P:handle_request:arg9" 1
expect_eq span_bad_arg "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
run_capture "$STK" offcputime --span "u:$P:phases:request_start,no_such_end" -o "$tmp/u.trace.json" 1
expect_eq span_unknown_usdt "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
expect_contains span_unknown_usdt_why "$ERR" "no USDT probe phases:no_such_end"
run_capture "$STK" profile --span "$P:handle_request" -f 1
expect_eq span_needs_an_output "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
