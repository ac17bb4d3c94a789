#!/bin/bash
# needs: root (BPF: perf events, sched_switch; unshare -m and a tmpfs for the full disk)
# stk record -o DIR/: a series of Parquet files. Rotation by time (complete
# files whose spans tile the run and whose events add up to what one file
# beside it got), by --max-files and --max-size (the oldest removed), on
# SIGHUP; kill -9 then a restart makes the unfinished file whole (stk report
# and DuckDB read it), an unrecoverable one kept aside; a planted symlink and
# a directory of another user refused; a second recorder on the directory
# refused; a full disk said once, recording paused and resumed, the losses in
# the next file's footer.
SUITE=rotate
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
# Scratch on a disk (the full disk below is a tmpfs of its own)
tmp=$(mktemp -d /var/tmp/stk-rotate.XXXXXX)
workloads_begin
duckdb_begin
# meta DIR_OR_FILE KEY: a footer key of each file, in name order, one a line
meta() { q "select decode(value) from parquet_kv_metadata('$1') where decode(key) = '$2' order by file_name"; }
# complete FILES in DIR, and unfinished ones
complete() { ls "$1" | grep -c '^stk-.*\.parquet$'; }
partial() { ls -a "$1" | grep -c '\.parquet\.partial$'; }
# sum_matching REGEX: the total of folded lines (stdin) matching REGEX
sum_matching() { re="$1" awk 'BEGIN { re = ENVIRON["re"] } $0 ~ re { s += $NF } END { printf "%.0f\n", s }'; }

# ===== rotation by time, beside one file of the same events =====
d=$tmp/series
# 40 naps of 50 ms from 300 ms after go: over well inside the series' 7 s, which start last
start_workload "$W/offcpu" 300 6 40 - "$tmp/go"
wpid=$WPID
"$STK" record -v -p "$wpid" -e offcpu,cpu:49 -o "$tmp/one.parquet" >/dev/null 2>"$tmp/one.err" & op=$!
wait_line "$tmp/one.err" 'tracing .* after start' $op
"$STK" record -v -p "$wpid" -e offcpu,cpu:49 -o "$d/" --rotate 2s --flush 1s 7 >/dev/null 2>"$tmp/series.err" & rp=$!
wait_line "$tmp/series.err" 'tracing .* after start' $rp
touch "$tmp/go"
wait $rp
rc=$?
sleep 0.5
kill -TERM $op
wait $op
expect_eq time_exit_status "$rc" 0
n=$(complete "$d")
if [ "$n" -ge 3 ] && [ "$n" -le 4 ]; then pass time_three_or_four_files; else fail time_three_or_four_files "$n files: $(ls "$d" | tr '\n' ' ')"; fi
expect_eq time_nothing_unfinished "$(partial "$d")" 0
expect_eq time_files_0600 "$(stat -c %a "$d"/stk-*.parquet | sort -u)" 600
expect_eq time_dir_0700 "$(stat -c %a "$d")" 700
# each file's span starts where the one before ended, and the spans cover the run (7 s)
spans="with kv as (select file_name f, decode(key) k, decode(value)::bigint v from parquet_kv_metadata('$d/*.parquet')
    where decode(key) in ('stk.start_ns', 'stk.duration_ns')),
  s as (select f, max(v) filter (where k = 'stk.start_ns') st, max(v) filter (where k = 'stk.duration_ns') du from kv group by f)"
tiled=$(q "$spans select count(*) filter (where prev <> st) || ' gaps, ' || round((max(st + du) - min(st)) / 1e9, 1) || ' s'
    from (select st, du, lag(st + du) over (order by st) prev from s)")
case "$tiled" in
    "0 gaps, 7."[0-4]" s") pass time_spans_tile_the_run ;;
    *) fail time_spans_tile_the_run "$tiled" ;;
esac
# names sort by the earliest instant of each file's events (or its opening, when earlier), and their
# ends by the files' closes: the order they were written in
firsts="$spans, e as (select filename f, min(epoch_ns(time)) t from read_parquet('$d/*.parquet', filename = true)
    group by 1) select string_agg(parse_filename(s.f), ' ' order by least(st, coalesce(e.t, st)), s.f)
    from s left join e on e.f = s.f"
expect_eq time_names_sort_by_first "$(ls "$d" | grep '^stk-' | sort | tr '\n' ' ' | sed 's/ $//')" "$(q "$firsts")"
expect_eq time_ends_in_write_order "$(ls "$d" | grep '^stk-' | sort -t- -k3 | tr '\n' ' ' | sed 's/ $//')" \
    "$(q "$spans select string_agg(parse_filename(f), ' ' order by st) from s")"
out_of_name=$(q "select count(*) from read_parquet('$d/*.parquet', filename = true) where
    time < strptime(regexp_extract(parse_filename(filename), 'stk-([0-9T.]*)Z-', 1), '%Y%m%dT%H%M%S.%g')::timestamptz at time zone 'UTC' - interval 1 millisecond")
expect_eq time_names_cover_events "$out_of_name" 0
# every nap (40; a preemption inside sleeper_nap may add one, a stack cut short take one) in the
# series, and exactly as many as in the file beside it
naps=$(q "select count(*) from read_parquet('$d/*.parquet') where event = 'offcpu' and stack like '%sleeper_nap%'")
if [ "$naps" -ge 38 ] 2>/dev/null && [ "$naps" -le 42 ]; then pass time_series_naps; else fail time_series_naps "$naps, want 40 (38 to 42)"; fi
expect_eq time_naps_as_one_file "$naps" "$(q "select count(*) from '$tmp/one.parquet' where event = 'offcpu' and stack like '%sleeper_nap%'")"
# each recorder's own programs time the same blocks: within a few microseconds a block
expect_within time_same_nap_time 0.5 "$(q "select sum(weight) from read_parquet('$d/*.parquet') where stack like '%sleeper_nap%'")" \
    "$(q "select sum(weight) from '$tmp/one.parquet' where stack like '%sleeper_nap%'")"
expect_eq time_events_add_up "$(meta "$d/*.parquet" stk.events | awk '{ s += $1 } END { print s }')" \
    "$(q "select count(*) from read_parquet('$d/*.parquet')")"
# stk report over the directory: the naps as the one file has them (each recorder timed them)
got=$("$STK" report --event offcpu -f "$d/" | sum_matching sleeper_nap)
want=$("$STK" report --event offcpu -f "$tmp/one.parquet" | sum_matching sleeper_nap)
expect_within report_dir_as_one_file 0.5 "$got" "$want"
expect_eq report_files_as_dir "$("$STK" report --event offcpu -f "$d"/stk-*.parquet | sum_matching sleeper_nap)" "$got"
# --from/--to: only the files whose names reach into the window are opened, and the report is the same
mkdir "$tmp/unnamed"
i=0; for f in "$d"/stk-*.parquet; do i=$((i + 1)); cp "$f" "$tmp/unnamed/part$i.parquet"; done
for w in "0 0.3" "3 3.5"; do
    set -- $w
    "$STK" report -f --from "$1" --to "$2" "$d/" >"$tmp/win.named" 2>"$tmp/win.err"
    "$STK" report -f --from "$1" --to "$2" "$tmp/unnamed/" >"$tmp/win.unnamed" 2>>"$tmp/win.err"
    # the same stacks; each total within a few microseconds (the reader's totals of a file move by as much
    # with another file beside it whose events lie outside the window: docs/record.md)
    if [ -s "$tmp/win.named" ] && [ ! -s "$tmp/win.err" ] && awk 'NR == FNR { v[$1] = $2; next } { d = v[$1] - $2; if (!($1 in v) || d > 10 || d < -10) bad++; n++ }
            END { exit bad || n != length(v) }' <(sed 's/ \([0-9]*\)$/\t\1/' "$tmp/win.named" | tr ' ' '_') <(sed 's/ \([0-9]*\)$/\t\1/' "$tmp/win.unnamed" | tr ' ' '_'); then
        pass "report_window_${1}_same"
    else
        fail "report_window_${1}_same" "$(wc -l <"$tmp/win.named") and $(wc -l <"$tmp/win.unnamed") lines; $(diff "$tmp/win.named" "$tmp/win.unnamed" | head -5; head -c 300 "$tmp/win.err")"
    fi
done
if command -v strace >/dev/null; then
    strace -f -e trace=open,openat -o "$tmp/report.strace" "$STK" report -f --from 0 --to 0.3 "$d/" >/dev/null 2>&1
    opened=$(grep -o '/stk-2[^"]*\.parquet' "$tmp/report.strace" | sort -u | wc -l)
    if [ "$opened" -ge 1 ] && [ "$opened" -lt "$n" ]; then pass report_window_opens_fewer; else fail report_window_opens_fewer "$opened of $n files opened for --from 0 --to 0.3"; fi
else
    skip report_window_opens_fewer "no strace here"
fi
# a series left running for days: more files than one recording opens, a window opens a few
mkdir "$tmp/days"
one=$(ls "$d"/stk-*.parquet | head -1)
for i in $(seq 0 4999); do
    printf -v a '20300101T%02d%02d%02d.000Z' $((i / 3600)) $((i / 60 % 60)) $((i % 60))
    printf -v b '20300101T%02d%02d%02d.000Z' $(((i + 1) / 3600)) $(((i + 1) / 60 % 60)) $(((i + 1) % 60))
    ln "$one" "$tmp/days/stk-$a-$b.parquet"
done
run_capture "$STK" report -f "$tmp/days/"
expect_contains days_whole_refused "$ERR" "5000 files in one recording, at most 4096"
run_capture "$STK" report -v -f --from '2030-01-01 01:00:00Z' --to '2030-01-01 01:00:02Z' "$tmp/days/"
expect_eq days_window_reads "$RC:$(printf '%s\n' "$ERR" | grep -c 'and the others')" "0:1"
stop_workloads

# ===== --max-files and --max-size: the oldest removed =====
d=$tmp/maxfiles
"$STK" record -v -e cpu:99 -o "$d/" --rotate 1s --max-files 2 5 >/dev/null 2>"$tmp/maxfiles.err"
expect_eq max_files_kept "$(complete "$d")" 2
removed=$(grep -c ': removed (--max-files 2' "$tmp/maxfiles.err")
if [ "$removed" -ge 2 ]; then pass max_files_removed_said; else fail max_files_removed_said "$removed lines: $(head -c 400 "$tmp/maxfiles.err")"; fi
closed=$(grep -o '/stk-2[^:/]*\.parquet: [0-9]* events' "$tmp/maxfiles.err" | cut -d: -f1 | tr -d / | tail -2 | tr '\n' ' ')
expect_eq max_files_newest_kept "$(ls "$d" | grep '^stk-' | tr '\n' ' ')" "$closed"
d=$tmp/maxsize
start_workload "$W/burn_pie" 8
# six files of 5 KB and more (footers, checkpoints, a second of 199 Hz samples): more than 24K together
"$STK" record -v -e cpu:199 -o "$d/" --rotate 1s --max-size 24K 6 >/dev/null 2>"$tmp/maxsize.err"
total=$(cat "$d"/stk-*.parquet | wc -c)
# within the size, or the newest alone (it stays even when larger)
if [ "$(complete "$d")" -ge 1 ] && { [ "$total" -le 24576 ] || [ "$(complete "$d")" -eq 1 ]; }; then pass max_size_kept
else fail max_size_kept "$total bytes in $(complete "$d") files"; fi
removed=$(grep -c ': removed (' "$tmp/maxsize.err")
if [ "$removed" -ge 1 ]; then pass max_size_removed_oldest; else fail max_size_removed_oldest "nothing removed: $(ls -l "$d")"; fi
closed=$(grep -o '/stk-2[^:/]*\.parquet: [0-9]* events' "$tmp/maxsize.err" | cut -d: -f1 | tr -d / | tail -"$(complete "$d")" | tr '\n' ' ')
expect_eq max_size_newest_kept "$(ls "$d" | grep '^stk-' | tr '\n' ' ')" "$closed"
stop_workloads

# ===== SIGHUP: a new file at once =====
d=$tmp/hup
# wait_until N: until N complete files are in $d, 10 s at most
wait_until() { for _ in $(seq 200); do [ "$(complete "$d")" -ge "$1" ] && return; sleep 0.05; done; }
"$STK" record -e cpu:49 -o "$d/" >/dev/null 2>"$tmp/hup.err" & rp=$!
wait_attached $rp
# the first file open: SIGHUP is taken from here on
for _ in $(seq 200); do [ "$(partial "$d" 2>/dev/null)" = 1 ] && break; sleep 0.05; done
sleep 0.5
kill -HUP $rp
wait_until 1
sleep 0.5
kill -HUP $rp
wait_until 2
expect_eq hup_files_while_running "$(complete "$d"):$(partial "$d")" "2:1"
kill -TERM $rp
wait $rp
expect_eq hup_term_exit_status "$?" 0
expect_eq hup_term_closes_cleanly "$(complete "$d"):$(partial "$d")" "3:0"
# every file reads whole (a quiet host may give one no sample: count the footers)
expect_eq hup_files_read "$(q "select count(*) from parquet_file_metadata('$d/*.parquet')")" 3

# ===== process churn: each checkpoint forgets the stacks and processes the rows before needed =====
# One file (--rotate 1h) with a checkpoint a second: what a recorder holds must not wait for a new file.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg2" ]; then
    skip churn_processes_forgotten "no cgroup2 mount found"
else
    d=$tmp/churn
    cg=$cg2/stk-rotate-churn-$$
    mkdir "$cg"
    "$STK" record -v -e cpu:999 --cgroup "$cg" -o "$d/" --rotate 1h --flush 1s >/dev/null 2>"$tmp/churn.err" & rp=$!
    wait_line "$tmp/churn.err" 'tracing .* after start' $rp
    # 20 programs of their own, each run once and deleted, as a build host's new binaries
    # are (copies of sh without a build ID, so each is a file of its own to the file cache)
    mkdir "$tmp/bins"
    for n in $(seq 20); do
        objcopy --remove-section .note.gnu.build-id "$(readlink -f /bin/sh)" "$tmp/bins/sh$n"
        sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done"' _ "$cg" "$tmp/bins/sh$n"
        rm "$tmp/bins/sh$n"
    done
    # 300 short processes, each followed by a 15 ms nap, so however fast the host they span
    # 4.5 s or more: the file gets several row groups with their samples
    sh -c 'echo $$ >"$1/cgroup.procs" && exec sh -c "for n in \$(seq 300); do sh -c '\''i=0; while [ \$i -lt 4000 ]; do i=\$((i+1)); done'\''; sleep 0.015; done"' _ "$cg"
    # checkpoints more than 10 s after the last exit was seen (at once, or by the 1 s sweep)
    sleep 14
    # the deleted programs' files let go: no descriptor keeps their blocks allocated
    held=$(ls -l "/proc/$rp/fd" 2>/dev/null | grep -c "$tmp/bins/")
    expect_eq churn_deleted_files_closed "$held" 0
    kill -INT $rp
    wait $rp
    expect_eq churn_exit_status "$?" 0
    rmdir "$cg"
    line=$(grep 'symbolizer:' "$tmp/churn.err")
    exited=$(sed -n 's/.*; \([0-9]*\) exited, compacted; .*/\1/p' <<<"$line")
    forgotten=$(sed -n 's/.* \([0-9]*\) forgotten).*/\1/p' <<<"$line")
    # nearly every process seen (one that exits before its mappings are read is not), each that
    # exited forgotten: none kept by kernel tables placed after its exit or an exit message lost
    if [ "${exited:-0}" -ge 270 ] && [ "${forgotten:-0}" -eq "$exited" ]; then pass churn_processes_forgotten
    else fail churn_processes_forgotten "$line"; fi
    # and their files: parsed once each (most of the 20 programs: a copy gone before its mappings
    # were read has none), every one freed once no process mapped it
    parsed=$(sed -n 's/.* \([0-9]*\) files parsed, .*/\1/p' <<<"$line")
    files_gone=$(sed -n 's/.* files parsed, [0-9]* failed, \([0-9]*\) forgotten$/\1/p' <<<"$line")
    if [ "${parsed:-0}" -ge 10 ] && [ "${files_gone:-0}" -eq "$parsed" ]; then pass churn_files_forgotten
    else fail churn_files_forgotten "$line"; fi
    # their stack copies too: no row group needed them since, and the kernel may send them again
    line=$(grep 'samples of new stack content sent' "$tmp/churn.err")
    sent=$(sed -n 's/.*: \([0-9]*\) samples of new stack content sent.*/\1/p' <<<"$line")
    let_go=$(sed -n 's/.*; \([0-9]*\) copies let go at checkpoints.*/\1/p' <<<"$line")
    if [ "${sent:-0}" -ge 270 ] && [ "${let_go:-0}" -ge $(( sent * 9 / 10 )) ]; then pass churn_copies_let_go
    else fail churn_copies_let_go "${line:-no copies line}"; fi
    # each checkpoint's row group numbers its stacks anew, above the ids of the group before it
    f=$(ls "$d"/*.parquet)
    ids="with g as (select distinct row_group_id, row_group_num_rows n from parquet_metadata('$f')),
      b as (select row_group_id, sum(n) over (order by row_group_id) - n lo, sum(n) over (order by row_group_id) hi from g),
      r as (select file_row_number r, stack_id from read_parquet('$f', file_row_number = true) where stack_id is not null),
      ids as (select row_group_id, min(stack_id) lo, max(stack_id) hi from r join b on r.r >= b.lo and r.r < b.hi group by 1)
      select count(*) filter (where lo <= prev) || ' of ' || count(*) from (select lo, lag(hi) over (order by row_group_id) prev from ids)"
    n_ids=$(q "$ids")
    case "$n_ids" in
        "0 of "[3-9]*|"0 of "[1-9][0-9]*) pass churn_ids_per_checkpoint ;;
        *) fail churn_ids_per_checkpoint "$n_ids row groups with ids at or below the group before's" ;;
    esac
    # their stacks were named as they came, from the processes' own mappings
    named=$("$STK" report -f "$d/" 2>/dev/null | grep -c '^sh;.*;__libc_start_main;')
    if [ "$named" -gt 0 ]; then pass churn_stacks_named; else fail churn_stacks_named "no sh stack through libc"; fi
fi

# ===== kill -9, then a restart makes the unfinished file whole =====
d=$tmp/crash
start_workload "$W/offcpu" 0 30 1000 -
wpid=$WPID
"$STK" record -p "$wpid" -e offcpu -o "$d/" --flush 1s >/dev/null 2>"$tmp/crash.err" & rp=$!
wait_attached $rp
sleep 4.5
kill -9 $rp
wait $rp 2>/dev/null
expect_eq crash_left_unfinished "$(complete "$d"):$(partial "$d")" "0:1"
p=$(ls -a "$d" | grep '\.parquet\.partial$')
# a row group cut short by the crash: bytes after the last checkpoint
head -c 5000 /dev/urandom >>"$d/$p"
# and a file no checkpoint can save
head -c 20000 /dev/urandom >"$d/.stk-20200101T000000.000Z.parquet.partial"
chmod 600 "$d/.stk-20200101T000000.000Z.parquet.partial"
"$STK" record -e cpu:49 -o "$d/" 1 >/dev/null 2>"$tmp/restart.err"
expect_eq restart_exit_status "$?" 0
line=$(grep "$p: recovered" "$tmp/restart.err")
recovered=$(echo "$line" | sed -n 's/.*recovered \([0-9]*\) events.*/\1/p')
dropped=$(echo "$line" | sed -n 's/.*; \([0-9]*\) bytes of an unfinished one dropped.*/\1/p')
if [ -n "$recovered" ] && [ "$recovered" -gt 10 ]; then pass restart_recovered_said; else fail restart_recovered_said "$(head -c 600 "$tmp/restart.err")"; fi
if [ -n "$dropped" ] && [ "$dropped" -ge 5000 ]; then pass restart_torn_tail_dropped; else fail restart_torn_tail_dropped "$line"; fi
name=$(echo "$line" | sed -n 's/.* as \(stk-.*\.parquet\)$/\1/p')
expect_eq restart_recovered_file "$(ls "$d" | grep -c "^$name$")" 1
expect_eq recovered_report_reads "$("$STK" report -v -f "$d/$name" 2>&1 >/dev/null | grep -o '[0-9]* events (0 lost)')" "$recovered events (0 lost)"
expect_eq recovered_duckdb_reads "$(q "select count(*) from '$d/$name'")" "$recovered"
# the naps of the seconds it kept: at least one, and no more than one each 50 ms of its span
naps=$(q "select count(*) from '$d/$name' where stack like '%sleeper_nap%'")
span_ms=$(( $(meta "$d/$name" stk.duration_ns) / 1000000 ))
if [ "$naps" -ge 1 ] 2>/dev/null && [ "$naps" -le $((span_ms / 50 + 2)) ]; then pass recovered_rows_whole
else fail recovered_rows_whole "$naps naps in $span_ms ms"; fi
expect_contains recovered_says_so "$(meta "$d/$name" stk.recovered)" "row groups kept"
expect_contains unrecoverable_said "$(grep '2020' "$tmp/restart.err")" "cannot be recovered"
expect_eq unrecoverable_kept_aside "$(ls -a "$d" | grep -c '^\.stk-20200101T000000\.000Z\.parquet\.broken$')" 1
expect_eq restart_report_whole_dir "$("$STK" report -v -f "$d/" 2>&1 >/dev/null | grep -c 'events')" 1
stop_workloads

# ===== the directory: a planted symlink, another user's, a second recorder =====
mkdir -p "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/link"
chown -h nobody "$tmp/link"
expect_bad_input planted_symlink "symbolic link of uid" "$STK" record -e cpu -o "$tmp/link/" 1
expect_eq planted_symlink_untouched "$(ls -A "$tmp/elsewhere" | wc -l)" 0
mkdir "$tmp/theirs"
chown nobody "$tmp/theirs"
expect_bad_input others_directory "of another user" "$STK" record -e cpu -o "$tmp/theirs/" 1
mkdir -m 0777 "$tmp/open"
expect_bad_input open_directory "others may write to" "$STK" record -e cpu -o "$tmp/open/" 1
d=$tmp/second
"$STK" record -e cpu -o "$d/" 10 >/dev/null 2>"$tmp/first.err" & rp=$!
wait_attached $rp
expect_bad_input second_recorder "another stk record writes there (pid $rp)" "$STK" record -e cpu -o "$d/" 1
kill -TERM $rp
wait $rp
expect_eq first_recorder_unharmed "$(complete "$d"):$(partial "$d")" "1:0"
expect_bad_input rotate_without_dir "--rotate is for a series of files" "$STK" record -e cpu --rotate 1m -o "$tmp/x.parquet" 1
expect_bad_input dir_with_other_output "the only output" "$STK" record -e cpu -o "$tmp/d9/" -o "$tmp/x.svg" 1
expect_bad_input bad_rotate "--rotate 0s" "$STK" record -e cpu -o "$tmp/d9/" --rotate 0s 1
expect_bad_input bad_max_size "--max-size lots" "$STK" record -e cpu -o "$tmp/d9/" --max-size lots 1

# ===== a full disk: said once, paused, resumed when there is room =====
if ! command -v unshare >/dev/null; then
    skip full_disk "no unshare here"
else
    cat >"$tmp/full.sh" <<'EOF'
set -u
mnt=$1 out=$2 STK=$3
mount -t tmpfs -o size=2m stk-full "$mnt" || { echo "mount failed" >"$out/status"; exit 1; }
"$STK" record -v -e offcpu,cpu:99 -o "$mnt/rec/" --flush 500ms >/dev/null 2>"$out/rec.err" & rp=$!
for _ in $(seq 200); do grep -qs 'tracing .* after start' "$out/rec.err" && break; sleep 0.05; done
sleep 1
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
for _ in $(seq 100); do grep -qs 'the disk is full' "$out/rec.err" && break; sleep 0.1; done
sleep 2
rm -f "$mnt/fill"
for _ in $(seq 100); do grep -qs 'recording resumed' "$out/rec.err" && break; sleep 0.1; done
sleep 1
kill -TERM $rp
wait $rp
echo "exit $?" >"$out/status"
kill -0 $rp 2>/dev/null && echo alive >>"$out/status"
cp -a "$mnt/rec" "$out/rec"
umount "$mnt"
EOF
    mkdir -p "$tmp/mnt" "$tmp/full"
    unshare -m --propagation private bash "$tmp/full.sh" "$tmp/mnt" "$tmp/full" "$STK"
    expect_eq full_exit_status "$(cat "$tmp/full/status")" "exit 0"
    expect_eq full_said_once "$(grep -c 'the disk is full' "$tmp/full/rec.err")" 1
    expect_eq full_resumed_once "$(grep -c 'room again: recording resumed' "$tmp/full/rec.err")" 1
    lost=$(sed -n 's/.*recording resumed after .* s; \([0-9]*\) events lost while the disk was full/\1/p' "$tmp/full/rec.err")
    if [ -n "$lost" ] && [ "$lost" -gt 0 ]; then pass full_losses_counted; else fail full_losses_counted "$(head -c 600 "$tmp/full/rec.err")"; fi
    expect_contains full_losses_at_end "$(cat "$tmp/full/rec.err")" "events lost while the disk was full"
    in_footer=$(meta "$tmp/full/rec/*.parquet" stk.events_lost_disk_full | awk '$1 > 0 { n++; s = $1 } END { print n "x" s }')
    expect_eq full_losses_in_next_footer "$in_footer" "1x$lost"
    expect_eq full_nothing_unfinished "$(partial "$tmp/full/rec")" 0
    expect_eq full_files_read "$("$STK" report -v -f "$tmp/full/rec/" 2>&1 >/dev/null | grep -c ' events (')" 1
    expect_eq full_duckdb_reads "$(q "select count(*) > 0 from read_parquet('$tmp/full/rec/*.parquet')")" true
fi
