#!/bin/bash
# needs: root (BPF: perf events, sched_switch, tracepoints, the task iterator)
# stk record: many kinds of one workload in one capture, each kind's total
# against what the workload did and against its own applet run over the same
# seconds (stk resources, stk offcputime beside it); the file read by DuckDB
# (a row per event, the added columns: system calls, block requests,
# threads' states); stk report over it equal to the capture's own output,
# sliced per kind, over several files, a difference of two windows, pprof
# with a sample type per kind, a timeline track per kind; a kind this kernel
# cannot give and other bad input in one line and exit 2; nothing left
# attached.
SUITE=record
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
# On a disk file system (O_DIRECT needs one; tmpfs has none).
tmp=$(mktemp -d /var/tmp/stk-record.XXXXXX)
workloads_begin
MIB=$((1024 * 1024))
# 16 MiB of each: enough to stand out, little enough for a short run
SIZE=16

# sum_matching FILE REGEX: the total of folded lines matching REGEX
sum_matching() { re="$2" awk 'BEGIN { re = ENVIRON["re"] } $0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }

duckdb_begin

# ===== one capture of every resources kind, cpu, offcpu, syscall, iorq and state; resources beside it =====
start_workload "$W/resources" all "$SIZE" "$tmp/all.dat"
wpid=$WPID wout=$WOUT
# and a tracepoint of stackcount's (syscalls:* take the classic tracepoint: raw_tp has no such event)
PROBE=t:syscalls:sys_enter_pwrite64
KINDS=cpu:99,offcpu,rss,block,read,write,send,recv,syscall,iorq,state:5,$PROBE
"$STK" record -v -p "$wpid" -e "$KINDS" -o "$tmp/rec.parquet" -o "$tmp/live.txt" -o "$tmp/rec.pb.gz" \
    -o "$tmp/rec.trace.json" >"$tmp/rec.out" 2>"$tmp/rec.err" & rp=$!
"$STK" resources -v -p "$wpid" -e rss,block,read,write,send,recv -f >"$tmp/res.folded" 2>"$tmp/res.err" & sp=$!
# each tracer's own line: its programs are all attached (a first link alone is not all of record's)
wait_line "$tmp/rec.err" 'tracing .* after start' $rp
wait_line "$tmp/res.err" 'tracing .* after start' $sp
# one object load: every program record holds comes from one BTF object, and one ring buffer carries every kind
prog_ids=$(grep -h '^prog_id:' /proc/$rp/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
map_ids=$(grep -h '^map_id:' /proc/$rp/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
btfs=$(for id in $prog_ids; do bpftool prog show id "$id" 2>/dev/null | sed -n 's/.*btf_id \([0-9]*\).*/\1/p'; done | sort -u | wc -l)
rings=$(for id in $map_ids; do bpftool map show id "$id" 2>/dev/null | head -1; done | grep -c 'ringbuf  name stk_events')
expect_eq one_object "$btfs:$([ -n "$prog_ids" ] && echo programs)" "1:programs"
expect_eq one_ring_buffer "$rings" 1
start=$(date +%s%N)
kill -USR1 "$wpid"
for _ in $(seq 400); do grep -q '^done' "$wout" && break; sleep 0.05; done
sleep 0.5
kill -INT $rp $sp
wait $rp; rrc=$?
wait $sp; src=$?
expect_eq rec_rc "$rrc" 0
expect_eq resources_beside_rc "$src" 0
expect_eq workload_done "$(grep -c '^done' "$wout")" 1
expect_contains rec_none_lost "$(cat "$tmp/rec.err")" "events recorded, none lost"
for k in cpu offcpu rss block read write syscall iorq state; do
    expect_contains "rec_says_$k" "$(cat "$tmp/rec.err")" "record: $k: "
done

F="read_parquet('$tmp/rec.parquet')"
expect_eq duckdb_count_is_footer "$(q "select count(*) from $F")" \
    "$(q "select decode(value) from parquet_kv_metadata('$tmp/rec.parquet') where decode(key) = 'stk.events'")"
expect_eq duckdb_schema "$(q "select decode(value) from parquet_kv_metadata('$tmp/rec.parquet') where decode(key) = 'stk.schema'")" \
    "stk-eventlog 2"
expect_eq duckdb_kinds "$(q "select string_agg(distinct event, ',' order by event) from $F")" \
    "block,cpu,iorq,offcpu,read,recv,rss,send,state,syscall,$PROBE,write"
# the tracepoint: a hit for each of the workload's pwrite64 calls, by the classic tracepoint
expect_eq probe_hits "$(q "select count(*) from $F where event = '$PROBE' and pid = $wpid and stack like '%direct_write_chunk%'")" "$SIZE"
expect_contains probe_mechanism "$(cat "$tmp/rec.err")" "record: $PROBE: 1 tracepoints, mechanism tracepoint (passed over: raw_tp: syscalls:sys_enter_pwrite64 is made from raw_syscalls"
expect_eq duckdb_units "$(q "select string_agg(distinct event || '/' || unit, ',' order by event || '/' || unit) from $F where event in ('rss', 'offcpu', 'syscall', 'iorq', 'state', 'cpu')")" \
    "cpu/count,iorq/nanoseconds,offcpu/nanoseconds,rss/bytes,state/count,syscall/nanoseconds"
# every row says the host it was recorded on: this one's name by default (localhost for a name no host takes)
me=$(uname -n | LC_ALL=C grep -E '^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,252}$' || echo localhost)
expect_eq duckdb_host_default "$(q "select string_agg(distinct coalesce(host, 'NULL'), ',') from $F")" "$me"

# each kind's total as the workload made it, and as stk resources beside it counted the same events
report_kind() { "$STK" report --event "$1" -f "$tmp/rec.parquet"; }
for k in rss/'grow_memory;touch_pages' block/'direct_io;direct_write_chunk' block/'direct_io;direct_read_chunk' \
         write/'direct_io;direct_write_chunk' read/'direct_io;direct_read_chunk' \
         send/'tcp_transfer;tcp_send_chunk' recv/'tcp_receiver;tcp_recv_chunk'; do
    kind=${k%%/*} path=${k#*/} name=${kind}_${k##*;}
    report_kind "$kind" >"$tmp/$kind.folded"
    got=$(sum_matching "$tmp/$kind.folded" ";$path;")
    expect_within "total_${name}_${SIZE}MiB" 10 "$got" $((SIZE * MIB))
    own=$(sum_matching "$tmp/res.folded" "^$kind;.*;$path;")
    expect_within "total_${name}_as_resources" 2 "$got" "$own"
done
# a kind alone prints as its own capture would: no kind before the task
expect_eq slice_no_kind_prefix "$(grep -c '^rss;' "$tmp/rss.folded")" 0
"$STK" report -f "$tmp/rec.parquet" >"$tmp/rec.folded"
expect_contains slice_whole_has_kinds "$(cut -d';' -f1 "$tmp/rec.folded" | sort -u | tr '\n' ' ')" "block iorq offcpu"

# syscall: every pwrite64 of the 1 MiB chunks, each its time, under direct_write_chunk's stack
expect_eq syscall_pwrite64_calls "$(q "select count(*) from $F where event = 'syscall' and pid = $wpid and syscall = 'pwrite64' and stack like '%direct_write_chunk%'")" "$SIZE"
expect_eq syscall_columns "$(q "select count(*) from $F where event = 'syscall' and (syscall_nr is null or weight <= 0)")" 0
# iorq: a row per request, its device and bytes; the writes add up to what was written
iorq_w=$(q "select sum(bytes) from $F where event = 'iorq' and op = 'write' and stack like '%direct_write_chunk%'")
expect_within iorq_write_bytes 10 "$iorq_w" $((SIZE * MIB))
expect_eq iorq_device_named "$(q "select count(*) from $F where event = 'iorq' and (device is null or bytes is null or weight <= 0)")" 0
# iorq's total is block-time's: the same requests, issue to completion
bt=$(q "select sum(weight) from $F where event = 'iorq'")
expect_within iorq_as_block_time 1 "$(report_kind iorq | awk '{ s += $NF } END { print s * 1000 }')" "$bt"
# state: the workload's threads, several passes, their states named as threadstate's CSV
expect_eq state_named "$(q "select count(*) from $F where event = 'state' and pid = $wpid and state not in ('RUN', 'RUNQ', 'SLEEP', 'DISK', 'STOPPED', 'ZOMBIE', 'IDLE')")" 0
n_state=$(q "select count(*) from $F where event = 'state' and pid = $wpid")
[ "${n_state:-0}" -ge 5 ] && pass state_passes || fail state_passes "${n_state:-0} state rows of the workload"
expect_contains state_sleeps_in_call "$(q "select string_agg(distinct syscall, ',') from $F where event = 'state' and pid = $wpid and state = 'SLEEP'")" "pause"
# cpu and offcpu counted as their own applets count them (a sample a stack; blocks from 1 us)
expect_eq cpu_samples_weigh_one "$(q "select count(*) from $F where event = 'cpu' and weight <> 1")" 0
expect_eq offcpu_blocks_from_1us "$(q "select count(*) from $F where event = 'offcpu' and weight < 1000")" 0

# report of the whole recording is what the capture printed
"$STK" report "$tmp/rec.parquet" >"$tmp/report.txt"
if cmp -s "$tmp/report.txt" "$tmp/live.txt"; then pass report_is_live; else fail report_is_live "$(diff "$tmp/report.txt" "$tmp/live.txt" | head -3)"; fi
# pprof: a sample type per kind, in the report's order
schema=/usr/share/gocode/src/github.com/google/pprof/proto
if zcat "$tmp/rec.pb.gz" | protoc --decode=perftools.profiles.Profile --proto_path="$schema" \
        "$schema/profile.proto" >"$tmp/rec.decoded" 2>"$tmp/p.err"; then
    types=$(awk '
        BEGIN { n = 0; m = 0 }
        /^string_table: / { s[n++] = $2 }
        /^sample_type \{/ { st = 1; next } st && /type: / { t = $2 } st && /unit: / { u[m] = t " " $2; m++ } /^}/ { st = 0 }
        END { for (i = 0; i < m; i++) { split(u[i], a, " "); printf "%s/%s ", s[a[1]], s[a[2]] } }' "$tmp/rec.decoded" | tr -d '"')
    expect_eq pprof_type_per_kind "$types" "samples/count offcpu/microseconds rss/bytes block/bytes read/bytes write/bytes send/bytes recv/bytes syscall/microseconds iorq/microseconds state/count $PROBE/count "
else
    fail pprof_decodes "$(head -3 "$tmp/p.err")"
fi
# the timeline: each kind of the workload's thread on a track of its own
expect_contains trace_offcpu_track "$(cat "$tmp/rec.trace.json")" "\"resources [offcpu]\""
expect_contains trace_state_track "$(cat "$tmp/rec.trace.json")" "\"resources [state]\""

# ===== several files as one, and differences =====
cp "$tmp/rec.parquet" "$tmp/dir.parquet"
mkdir "$tmp/dir" && cp "$tmp/rec.parquet" "$tmp/dir/a.parquet" && cp "$tmp/rec.parquet" "$tmp/dir/b.parquet"
two=$("$STK" report --event write -f "$tmp/dir" | awk '{ s += $NF } END { print s }')
one=$("$STK" report --event write -f "$tmp/rec.parquet" | awk '{ s += $NF } END { print s }')
expect_eq many_files_add_up "$two" $((2 * one))
expect_eq glob_as_directory "$("$STK" report --event write -f "$tmp/dir/*.parquet" | awk '{ s += $NF } END { print s }')" "$two"
# the same recording against itself: every line's base is its value
"$STK" report --base "$tmp/rec.parquet" --event write "$tmp/rec.parquet" >"$tmp/self.diff"
expect_eq diff_self_equal "$(awk '$(NF - 1) != $NF' "$tmp/self.diff" | wc -l)" 0
[ -s "$tmp/self.diff" ] && pass diff_self_lines || fail diff_self_lines "no lines"
# two windows: before the workload started against the seconds it ran; its write only in the second
s_rel=$(awk -v s="$start" -v f="$(q "select epoch_ns(min(time)) from $F")" 'BEGIN { printf "%.3f", (s - f) / 1e9 }')
"$STK" report --event write --base-to "$s_rel" --from "$s_rel" "$tmp/rec.parquet" >"$tmp/win.diff"
grew=$(awk '/direct_write_chunk/ { b += $(NF - 1); n += $NF } END { print b + 0, n + 0 }' "$tmp/win.diff")
expect_eq diff_window_base_none "${grew% *}" 0
expect_within diff_window_grew 10 "${grew#* }" $((SIZE * MIB))
"$STK" report --base-to "$s_rel" --from "$s_rel" --event write "$tmp/rec.parquet" -o "$tmp/win.svg"
expect_contains diff_svg_growth_red "$(cat "$tmp/win.svg")" "rgb(255,"
expect_bad_input diff_text_refused "a difference is drawn as folded, svg or pprof" "$STK" report --base "$tmp/rec.parquet" \
    --format text "$tmp/rec.parquet"
stop_workloads

# ===== a fleet: each host's directory says its name in the host column; one report or query over all =====
# Two hosts' series side by side: one flat in its own directory, one in the hive layout; then both
# hive, in one directory (DIR/host=H/date=D/), as DuckDB, Spark and Trino read partitions.
start_workload "$W/burn_pie" 30
bp=$WPID
rec_host() { # HOST DIR [OPTION...]
    "$STK" record -p "$bp" -e cpu:49 --host "$1" -o "$2" "${@:3}" 2 >/dev/null 2>"$tmp/fleet.err" ||
        fail "fleet_record_$1" "$(cat "$tmp/fleet.err")"
}
rec_host web-1 "$tmp/fleet/web-1/"
rec_host db-2.example.net "$tmp/fleet/db-2.example.net/"
rec_host web-1 "$tmp/hive/" --layout hive
rec_host db-2.example.net "$tmp/hive/" --layout hive
stop_workloads
two_dirs=("$tmp/fleet/web-1/" "$tmp/fleet/db-2.example.net/")
both=$("$STK" report -f "${two_dirs[@]}" | sum_matching /dev/stdin 'known_leaf')
web=$("$STK" report -f --host web-1 "${two_dirs[@]}" | sum_matching /dev/stdin 'known_leaf')
db=$("$STK" report -f --host db-2.example.net "${two_dirs[@]}" | sum_matching /dev/stdin 'known_leaf')
fleet_q() { q "select string_agg(host || '=' || n, ',' order by host) from (select host, count(*) as n from read_parquet('$tmp/fleet/*/*.parquet') where stack like '%known_leaf%' group by host)"; }
expect_eq fleet_duckdb_by_host "$(fleet_q)" "db-2.example.net=$db,web-1=$web"
[ "$web" -gt 50 ] && [ "$db" -gt 50 ] && pass fleet_each_host_sampled || fail fleet_each_host_sampled "web-1 $web, db-2 $db samples"
expect_eq fleet_hosts_add_up "$both" $((web + db))
expect_eq fleet_other_host_none "$("$STK" report -f --host web-3 "$tmp/fleet/web-1/" | wc -l)" 0
# the hive layout: a directory per host and per UTC date (0700; two dates if the run crossed
# midnight: a file a date), files 0600, the lock per host
for h in web-1 db-2.example.net; do
    files=$(ls -d "$tmp/hive/host=$h"/date=*/stk-*.parquet 2>/dev/null)
    n=$(printf '%s\n' "$files" | grep -c parquet)
    dates=$(ls -d "$tmp/hive/host=$h"/date=* 2>/dev/null | grep -cE '/date=[0-9]{4}-[0-9]{2}-[0-9]{2}$')
    [ "$n" -ge 1 ] && [ "$n" -eq "$dates" ] && pass "hive_${h}_a_file_a_date" ||
        fail "hive_${h}_a_file_a_date" "$n files in $dates date directories: $(ls -R "$tmp/hive/host=$h" | head -c 300)"
    modes=$(stat -c %a "$tmp/hive/host=$h" "$tmp/hive/host=$h"/date=* $files 2>&1 | sort -u | paste -sd' ')
    expect_eq "hive_${h}_modes" "$modes" "600 700"
done
hive_both=$("$STK" report -f "$tmp/hive/" | sum_matching /dev/stdin 'known_leaf')
hive_web=$("$STK" report -f --host web-1 "$tmp/hive/" | sum_matching /dev/stdin 'known_leaf')
hive_one=$("$STK" report -f "$tmp/hive/host=db-2.example.net/" | sum_matching /dev/stdin 'known_leaf')
[ "$hive_web" -gt 50 ] && [ "$hive_one" -gt 50 ] && pass hive_each_host_sampled ||
    fail hive_each_host_sampled "web-1 $hive_web, db-2 $hive_one samples"
expect_eq hive_report_partitions_add_up "$hive_both" $((hive_web + hive_one))
hive_q() { q "select string_agg(host || '=' || n, ',' order by host) from (select host, count(*) as n from read_parquet('$tmp/hive/*/*/*.parquet', hive_partitioning = true) where stack like '%known_leaf%' and cast(date as varchar) = strftime(timezone('UTC', time), '%Y-%m-%d') group by all)"; }
expect_eq hive_duckdb_partitions "$(hive_q)" "db-2.example.net=$hive_one,web-1=$hive_web"
expect_bad_input hive_layout_unknown "--layout tree: expected flat or hive" "$STK" record -e cpu --layout tree -o "$tmp/hive/" 1
expect_bad_input hive_layout_needs_dir "--layout is for a series of files: add -o DIR/" "$STK" record -e cpu --layout hive 1

# ===== offcpu beside offcputime, over one sleeping workload =====
start_workload "$W/phases" "$tmp/go" 0.5 4
ppid=$WPID
"$STK" record -v -p "$ppid" -e offcpu,cpu -o "$tmp/off.parquet" >/dev/null 2>"$tmp/off.err" & rp=$!
"$STK" offcputime -v -p "$ppid" -f >"$tmp/off_own.folded" 2>"$tmp/off_own.err" & op=$!
wait_line "$tmp/off.err" 'tracing .* after start' $rp
wait_line "$tmp/off_own.err" 'tracing .* after start' $op
touch "$tmp/go"
for _ in $(seq 200); do grep -qs '^done' "$WOUT" && break; sleep 0.05; done
kill -INT $rp $op; wait $rp $op
got=$("$STK" report --event offcpu -f "$tmp/off.parquet" | sum_matching /dev/stdin 'phase_b_sleep')
own=$(sum_matching "$tmp/off_own.folded" 'phase_b_sleep')
expect_within offcpu_as_offcputime 2 "$got" "$own"
expect_within offcpu_sleep_phase 20 "$got" 500000
stop_workloads

# ===== no -e: the flight recorder's set, its off-CPU time sampled (one switch-out in N, weighted N) =====
# napper's N/4 threads nap 4,000 x 1 ms each (1,000 x N blocks in about 4.5 s) and say how long they
# were off CPU (wall less CPU time): the truth the weighted sample must come within 10% of (about
# 1,000 blocks taken: the count's own spread is about 3%, so 10% is more than 3 of it).
DEFAULT_KINDS=$("$STK" record --help | sed -n 's/.*(may be repeated; default \([^ ]*\),$/\1/p')
EVERY=$(sed -n 's/.*offcpu:\([0-9]*\).*/\1/p' <<<"$DEFAULT_KINDS")
start_workload "$W/napper" 4000 1000 "$tmp/nap_go" $((${EVERY:-4} / 4))
nap_pid=$WPID nap_out=$WOUT
"$STK" record -v -p "$nap_pid" -o "$tmp/default.parquet" >/dev/null 2>"$tmp/default.err" & rp=$!
wait_line "$tmp/default.err" 'tracing .* after start' $rp
touch "$tmp/nap_go"
for _ in $(seq 1200); do grep -qs '^done' "$nap_out" && break; sleep 0.05; done
kill -INT $rp; wait $rp; drc=$?
expect_eq default_set_rc "$drc" 0
expect_contains default_set_in_help "$DEFAULT_KINDS" "cpu:19,offcpu:"
expect_eq default_set_title \
    "$(q "select decode(value) from parquet_kv_metadata('$tmp/default.parquet') where decode(key) = 'stk.report.title'")" \
    "stk record -e $DEFAULT_KINDS"
off_us=$(sed -n 's/^offcpu \([0-9]*\)$/\1/p' "$nap_out" | awk '{ printf "%.0f\n", $1 / 1000 }')
sampled_us=$("$STK" report --event offcpu -f "$tmp/default.parquet" | sum_matching /dev/stdin 'napper_nap')
expect_within default_offcpu_sampled_total 10 "$sampled_us" "$off_us"
nap_rows=$(q "select count(*) from read_parquet('$tmp/default.parquet') where event = 'offcpu' and stack like '%napper_nap%'")
expect_within default_offcpu_one_in_n 25 "$nap_rows" 1000
expect_eq default_file_says_sampled \
    "$(q "select decode(value) from parquet_kv_metadata('$tmp/default.parquet') where decode(key) = 'stk.sampled'")" \
    "$(printf 'offcpu\t%s\tat random gaps on each CPU (N/2 to 3N/2)' "$EVERY")"
expect_eq default_state_rows "$(q "select count(*) > 0 from read_parquet('$tmp/default.parquet') where event = 'state'")" true
stop_workloads

# ===== stackcount's other probes, each with cpu in one capture: a user function, a USDT probe =====
# readloop calls rl_read_once and fires USDT stk_readloop:tick N times each; stackcount counts the same run
N=10000
start_workload "$W/readloop" $N "$tmp/rl_go"
rlpid=$WPID rlout=$WOUT
UFUNC=readloop:rl_read_once USDT=u:readloop:tick
"$STK" record -v -p "$rlpid" -e cpu:999,$UFUNC -o "$tmp/ufunc.parquet" >/dev/null 2>"$tmp/ufunc.err" & up=$!
"$STK" record -v -p "$rlpid" -e $USDT,cpu:999 -o "$tmp/usdt.parquet" >/dev/null 2>"$tmp/usdt.err" & dp=$!
"$STK" stackcount -v -p "$rlpid" -f $UFUNC >"$tmp/ufunc_own.folded" 2>"$tmp/ufunc_own.err" & cp=$!
wait_line "$tmp/ufunc.err" 'tracing .* after start' $up
wait_line "$tmp/usdt.err" 'tracing .* after start' $dp
wait_line "$tmp/ufunc_own.err" 'tracing .* after start' $cp
touch "$tmp/rl_go"
for _ in $(seq 600); do grep -qs '^done' "$rlout" && break; sleep 0.05; done
sleep 0.3
kill -INT $up $dp $cp
wait $up; urc=$?
wait $dp; drc=$?
wait $cp
expect_eq ufunc_rc "$urc:$drc" 0:0
expect_eq ufunc_workload_done "$(grep -c '^done' "$rlout")" 1
expect_contains ufunc_mechanism "$(cat "$tmp/ufunc.err")" "record: $UFUNC: 1 functions, mechanism uprobe"
expect_contains usdt_mechanism "$(cat "$tmp/usdt.err")" "record: $USDT: 1 USDT probes, mechanism usdt"
UF="read_parquet('$tmp/ufunc.parquet')" UD="read_parquet('$tmp/usdt.parquet')"
# both kinds in each file, the probe's events named by its pattern as given, weight 1
expect_eq ufunc_kinds "$(q "select string_agg(distinct event, ',' order by event) from $UF")" "cpu,$UFUNC"
expect_eq usdt_kinds "$(q "select string_agg(distinct event, ',' order by event) from $UD")" "cpu,$USDT"
expect_eq ufunc_weighs_one "$(q "select count(*) from $UF where event = '$UFUNC' and (weight <> 1 or unit <> 'count')")" 0
# every call, under its known callers. Up to 17 in 10,000 have been seen with no user stack, all in the
# first 30 ms and only with cpu:999 beside the probe: a hit whose registers show the pc one byte past
# the breakpoint, which no CFI row unwinds (a defect noted in docs/unwinding.md, not this probe's).
expect_eq ufunc_hits "$(q "select count(*) from $UF where event = '$UFUNC' and pid = $rlpid")" $N
expect_within ufunc_hits_under_callers 0.3 \
    "$(q "select count(*) from $UF where event = '$UFUNC' and pid = $rlpid and stack like '%;main;rl_read_path;rl_read_once'")" $N
expect_eq usdt_hits "$(q "select count(*) from $UD where event = '$USDT' and pid = $rlpid")" $N
expect_within usdt_hits_under_callers 0.3 "$(q "select count(*) from $UD where event = '$USDT' and pid = $rlpid and stack like '%;main'")" $N
# the same total as stackcount's over the same run, its stack the one stackcount prints most
"$STK" report --event $UFUNC -f "$tmp/ufunc.parquet" >"$tmp/ufunc.folded"
expect_eq ufunc_as_stackcount "$(sum_matching "$tmp/ufunc.folded" .)" "$(sum_matching "$tmp/ufunc_own.folded" .)"
top() { awk '{ print $NF "\t" $0 }' "$1" | sort -n | tail -1 | cut -f2- | sed 's/ [0-9]*$//'; }
expect_eq ufunc_stack_as_stackcount "$(top "$tmp/ufunc.folded")" "$(top "$tmp/ufunc_own.folded")"
stop_workloads

# a kernel function: where the kernel cannot trace them, stackcount's own reason in one line, exit 2, nothing attached
if [ "$("$STK" info 2>/dev/null | sed -n 's/^stackcount kernel function: \([a-z_.]*\).*/\1/p')" = none ]; then
    kprobes_before=$(cat /sys/kernel/tracing/kprobe_events 2>/dev/null | wc -l)
    run_capture "$STK" stackcount p:vfs_read
    own_reason=${ERR#stk stackcount: }
    run_capture "$STK" record -e cpu,p:vfs_read 1
    expect_eq kfunc_refused_rc "$RC:$(printf '%s\n' "$ERR" | wc -l):$OUT" "2:1:"
    expect_eq kfunc_refused_as_stackcount "$ERR" "stk record: p:vfs_read: $own_reason"
    expect_contains kfunc_refused_why "$ERR" "no mechanism can trace kernel functions on this kernel"
    expect_eq kfunc_refused_nothing_left "$(cat /sys/kernel/tracing/kprobe_events 2>/dev/null | wc -l)" "$kprobes_before"
fi

# ===== a kind this kernel cannot give, other bad input: one line, exit 2, nothing attached =====
# no kmem tracepoints in tracefs: every rung of rss's ladder needs kmem:rss_stat
unshare -m sh -c "{ [ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing; } &&
                  mount -t tmpfs none /sys/kernel/tracing/events/kmem &&
                  exec '$STK' record -e cpu,rss 1" >"$tmp/u.out" 2>"$tmp/u.err"
expect_eq unavailable_rc "$?:$(wc -l <"$tmp/u.err")" "2:1"
expect_contains unavailable_names_it "$(cat "$tmp/u.err")" "stk record: rss unavailable on this kernel (tp_btf: no tracepoint kmem/rss_stat"
bad() { expect_bad_input "$1" "$2" "$STK" record "${@:3}"; }
bad unknown_kind "-e: unknown kind 'disk' (expected cpu, offcpu, rss," -e cpu,disk 1
bad rates_differ "-e: cpu given twice with different rates (99 and 49)" -e cpu:99,cpu:49 1
bad state_with_tid "-e state samples whole processes: -t is not for it" -e state -t 1 1
bad offcpu_rate "-e offcpu: expected offcpu:N with N from 1 to 1000 (one event in N" -e offcpu:1001 1
bad probe_second "-e c:free: one probe pattern a recording (c:malloc given already" -e cpu,c:malloc,c:free 1
bad probe_bad_pattern "pattern 't:sched': expected t:CATEGORY:EVENT" -e cpu,t:sched 1
bad probe_no_function "no function matches 'no_such_fn' in $W/readloop" -e "cpu,$W/readloop:no_such_fn" 1
bad probe_unknown "unknown tracepoint 'nosuch:event'" -e t:nosuch:event 1
bad host_empty "--host : empty" --host "" -e cpu 1
bad host_slash "--host a/b: only letters, digits and" --host a/b -e cpu 1
bad host_long "--host $(printf 'h%.0s' $(seq 254)): longer than 253 bytes" --host "$(printf 'h%.0s' $(seq 254))" -e cpu 1
expect_bad_input report_host_bad "--host web-1,: empty" "$STK" report --host web-1, "$tmp/rec.parquet"
bad block_apart "same N" -e block:2,iorq:3 1
bad format_disagrees "-o $tmp/x.parquet: its extension says parquet, -f/--format says folded; drop one" \
    -e cpu -f -o "$tmp/x.parquet" 1
"$STK" record -e cpu,offcpu,rss,syscall,state >/dev/null 2>&1 & kp=$!
sleep 3
kill9_leaves_nothing "$kp"
