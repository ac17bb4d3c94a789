#!/bin/bash
# Parquet files stk's writer makes, read by a real engine: DuckDB (npm
# @duckdb/node-api, installed into $BUILD/node on first use) reads every
# file tests/parquet/pq_sample writes, and its answers (counts, sums,
# distinct stacks, NULLs, time bounds, types, row groups, encodings,
# statistics, key/value metadata) are what was written; stk's own reader
# gives the same answers. A writer stopped by SIGTERM leaves a readable file.
SUITE=parquet
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
. "$(dirname "$0")/../lib.sh"
PQ=$BUILD/tests/pq_sample
tmp=$(mktemp -d)
workloads_begin

if ! make -C "$ROOT" --no-print-directory BUILD="$BUILD" "$PQ" >"$tmp/make.log" 2>&1; then
    fail build_pq_sample "$(tail -3 "$tmp/make.log" | tr '\n' ' ')"
    exit 1
fi
duckdb_begin
# want KEY FILE: the value pq_sample printed for KEY
want() { sed -n "s/^$1 //p" "$2"; }

# --- off-CPU-like events: 200,000 rows in 4 row groups ---
ev=$tmp/events.parquet
"$PQ" events "$ev" 200000 50000 >"$tmp/events.want" || fail events_written "pq_sample exited $?"
F="read_parquet('$ev')"
expect_eq events_count "$(q "select count(*) from $F")" "$(want count "$tmp/events.want")"
expect_eq events_sum_weight "$(q "select sum(weight) from $F")" "$(want sum_weight "$tmp/events.want")"
# DuckDB keeps microseconds in TIMESTAMP WITH TIME ZONE
expect_eq events_time_bounds "$(q "select epoch_us(min(time)) || ' ' || epoch_us(max(time)) from $F")" \
    "$(($(want min_time "$tmp/events.want") / 1000)) $(($(want max_time "$tmp/events.want") / 1000))"
expect_eq events_time_is_timestamp "$(q "select typeof(min(time)) from $F")" "TIMESTAMP WITH TIME ZONE"
expect_eq events_spans "$(q "select count(span) || ' ' || count(*) filter (where span is null) from $F")" \
    "$(want spans "$tmp/events.want") $(($(want count "$tmp/events.want") - $(want spans "$tmp/events.want")))"
expect_eq events_distinct_stacks "$(q "select count(*) || ' ' || sum(length(stack)) from (select distinct stack from $F)")" \
    "$(want distinct_stacks "$tmp/events.want") $(want distinct_stack_bytes "$tmp/events.want")"
expect_eq events_most_common_stack "$(q "select count(*) from $F where stack = '$(want stack0 "$tmp/events.want")'")" \
    "$(want stack0_rows "$tmp/events.want")"
expect_eq events_describe "$(q "select string_agg(column_name || ' ' || column_type || ' ' || \"null\", ', ') from (describe select * from $F)")" \
    "time TIMESTAMP WITH TIME ZONE YES, pid INTEGER YES, tid INTEGER YES, comm VARCHAR YES, cpu INTEGER YES, event VARCHAR YES, weight BIGINT YES, unit VARCHAR YES, stack VARCHAR YES, span VARCHAR YES"
expect_eq events_schema "$(q "select string_agg(name || ':' || coalesce(type, '') || ':' || coalesce(repetition_type, '') || ':' || coalesce(converted_type, ''), ' ') from parquet_schema('$ev')")" \
    "schema::: time:INT64:REQUIRED: pid:INT32:REQUIRED: tid:INT32:REQUIRED: comm:BYTE_ARRAY:REQUIRED:UTF8 cpu:INT32:REQUIRED: event:BYTE_ARRAY:REQUIRED:UTF8 weight:INT64:REQUIRED: unit:BYTE_ARRAY:REQUIRED:UTF8 stack:BYTE_ARRAY:REQUIRED:UTF8 span:BYTE_ARRAY:OPTIONAL:UTF8"
expect_contains events_timestamp_logical_type "$(q "select logical_type from parquet_schema('$ev') where name = 'time'")" \
    "TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=<null>, NANOS=NanoSeconds()))"
M="parquet_metadata('$ev')"
expect_eq events_row_groups "$(q "select count(distinct row_group_id) || ' ' || min(row_group_num_rows) from $M")" "4 50000"
# dictionary-encoded chunks gzipped, DELTA_BINARY_PACKED ones (bit-packed already) stored as they are
expect_eq events_codec "$(q "select string_agg(distinct path_in_schema || '=' || compression, ' ' order by path_in_schema || '=' || compression) from $M where path_in_schema in ('time', 'stack', 'pid')")" \
    "pid=GZIP stack=GZIP time=UNCOMPRESSED"
expect_eq events_encodings "$(q "select string_agg(distinct path_in_schema || '=' || encodings, ' ' order by path_in_schema || '=' || encodings) from $M where path_in_schema in ('time', 'stack', 'pid')")" \
    "pid=PLAIN, RLE, RLE_DICTIONARY stack=PLAIN, RLE, RLE_DICTIONARY time=RLE, DELTA_BINARY_PACKED"
# the statistics engines skip row groups with: every time chunk has them, and they bound its rows
expect_eq events_time_statistics "$(q "select count(*) from $M m where path_in_schema = 'time' and stats_min_value is not null and stats_null_count = 0 and (select count(*) from $F where time between m.stats_min_value::timestamptz and m.stats_max_value::timestamptz) >= 50000")" "4"
expect_eq events_null_count_statistics "$(q "select sum(stats_null_count) from $M where path_in_schema = 'span'")" \
    "$(($(want count "$tmp/events.want") - $(want spans "$tmp/events.want")))"
expect_eq events_key_value_metadata "$(q "select string_agg(decode(key) || '=' || decode(value), ' ' order by key) from parquet_kv_metadata('$ev')")" \
    "stk.command=pq_sample stk.schema=1"
# stk's own reader: the same answers
"$PQ" read "$ev" >"$tmp/events.read" 2>&1
expect_eq events_stk_reader "$(cat "$tmp/events.read")" "$(grep -v '^stack0' "$tmp/events.want"; echo "metadata 1")"

# --- edge cases: extremes, NULLs, empty and long strings, 25 row groups ---
ed=$tmp/edge.parquet
"$PQ" edge "$ed" >"$tmp/edge.want" || fail edge_written "pq_sample exited $?"
E="read_parquet('$ed')"
text=$(printf 'tab\tnewline\n'"'"'quote'"'"' h\303\251llo \342\230\203')
expect_eq edge_first_rows "$(q "select id, i32, i64, epoch_us(ts), coalesce(s, 'NULL') = s, s is null, length(r), md5(r) from $E where id < 3 order by id")" \
    "$(printf '0\t-2147483648\t-9223372036854775808\t0\ttrue\tfalse\t27\t%s\n' "$(printf '%s' "$text" | md5sum | cut -d' ' -f1)"
       printf '1\t2147483647\t9223372036854775807\t1700000000123456\tNULL\ttrue\t100000\t%s\n' "$(head -c 100000 /dev/zero | tr '\0' a | md5sum | cut -d' ' -f1)"
       printf '2\tNULL\tNULL\tNULL\tNULL\ttrue\t0\td41d8cd98f00b204e9800998ecf8427e')"
expect_eq edge_rest "$(q "select count(*) || ' ' || sum(i64) filter (where id >= 3) || ' ' || count(i64) filter (where id >= 3) || ' ' || count(s) filter (where id >= 3) from $E")" \
    "$(want count "$tmp/edge.want") $(want rest_sum_i64 "$tmp/edge.want") $(want rest_i64 "$tmp/edge.want") $(want rest_s "$tmp/edge.want")"
expect_eq edge_all_null_groups "$(q "select count(*) from $E where id between 100 and 299 and s is not null")" "0"
expect_eq edge_row_groups "$(q "select count(distinct row_group_id) from parquet_metadata('$ed')")" "$(want row_groups "$tmp/edge.want")"
expect_eq edge_describe "$(q "select string_agg(column_type, ',') from (describe select * from $E)")" \
    "BIGINT,INTEGER,BIGINT,TIMESTAMP WITH TIME ZONE,VARCHAR,VARCHAR"
expect_eq edge_int_statistics "$(q "select min(stats_min_value::bigint) || ' ' || max(stats_max_value::bigint) from parquet_metadata('$ed') where path_in_schema = 'i64'")" \
    "-9223372036854775808 9223372036854775807"

# --- no rows ---
em=$tmp/empty.parquet
"$PQ" empty "$em" >/dev/null || fail empty_written "pq_sample exited $?"
expect_eq empty_count "$(q "select count(*) from read_parquet('$em')")" "0"
expect_eq empty_columns "$(q "select count(*) from (describe select * from read_parquet('$em'))")" "10"
expect_eq empty_stk_reader "$("$PQ" read "$em" | head -1)" "count 0"

# --- a writer stopped by SIGTERM closes its file ---
st=$tmp/term.parquet
"$PQ" until-term "$st" >"$tmp/term.out" 2>&1 &
spid=$!
pids+=("$spid")
for _ in $(seq 100); do grep -q '^ready ' "$tmp/term.out" && break; sleep 0.05; done
sleep 0.5
kill -TERM "$spid"
wait "$spid"
rc=$?
pids=()
expect_eq sigterm_clean_exit "$rc" 0
rows=$(want count "$tmp/term.out")
[ -n "$rows" ] && [ "$rows" -gt 0 ] && pass sigterm_rows_written || fail sigterm_rows_written "no count in: $(cat "$tmp/term.out")"
expect_eq sigterm_duckdb_reads "$(q "select count(*) from read_parquet('$st')")" "$rows"
expect_eq sigterm_stk_reader "$("$PQ" read "$st" | head -1)" "count $rows"

# --- stk's reader refuses what it cannot read, in one line ---
head -c 1000 "$ev" >"$tmp/cut.parquet"
run_capture "$PQ" read "$tmp/cut.parquet"
expect_eq refuses_truncated "$RC:$(printf '%s\n' "$ERR" | wc -l)" "2:1"
expect_contains refuses_truncated_why "$ERR" "truncated Parquet file"
q "copy (select 1::bigint as x) to '$tmp/duck.parquet' (format parquet)" >/dev/null
run_capture "$PQ" read "$tmp/duck.parquet"
expect_contains refuses_foreign_schema "$RC $ERR" "2 pq_sample: $tmp/duck.parquet: no column time"
