#!/bin/bash
# stk report renders the recordings in tests/fixtures/recordings exactly as
# the binary that made them did: byte for byte, in every format and with
# every option that changes what it prints (windows, processes, threads,
# spans, events, -o by extension, -v), exit status and stderr included.
# Needs no root: report only reads files.
#
# The data: tests/fixtures/recordings/*.parquet are real captures of
# tests/workloads (profile on each unwinding rung, offcputime with blocks
# still going at the end, stackcount on a tracepoint and a uprobe, --span
# labels, per-thread captures); manifest lists one case per line,
# "NAME STATUS RECORDING ARGS..." (stk report ARGS RECORDING, run in that
# directory; @OUT@ is a path prefix for -o files); expected/NAME.out holds
# stdout followed by the -o files in name order, expected/NAME.err stderr
# (none: stderr must be empty).
#
# Regenerating them: tests/fixtures/recordings/make.sh, as root, with
#   STK=/path/to/stk BUILD=build bash tests/fixtures/recordings/make.sh
# (record: new captures; render: the manifest and expected/ from them).
# Run it ONLY with a binary built before the change this test is to guard:
# what it writes is what every later binary must print.
SUITE=report_golden
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
. "$(dirname "$0")/../lib.sh"
# --from HH:MM:SS reads local time; the renders were made in UTC. C collation orders the -o files.
export TZ=UTC LC_ALL=C
dir=$ROOT/tests/fixtures/recordings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# first_difference GOT WANT: where two files part, as cmp says it, with the line each has there
first_difference() {
    local c line
    c=$(cmp "$1" "$2" 2>&1 | sed "s|$1|got|; s|$2|want|")
    line=$(printf '%s\n' "$c" | sed -n 's/.*line \([0-9]*\).*/\1/p')
    if [ -n "$line" ]; then
        printf '%s; got line %s: %s; want: %s' "$c" "$line" "$(sed -n "${line}p" "$1" | head -c 160 | tr -d '\0')" \
            "$(sed -n "${line}p" "$2" | head -c 160 | tr -d '\0')"
    else
        printf '%s' "$c"
    fi
}

cases=0
names=$tmp/names
: >"$names"
while read -r name status rec args; do
    case $name in '' | '#'*) continue ;; esac
    cases=$((cases + 1))
    echo "$name" >>"$names"
    read -r -a argv <<<"$args"
    d=$tmp/$name
    mkdir -p "$d/o"
    if [ ! -f "$dir/$rec" ] || [ ! -f "$dir/expected/$name.out" ]; then
        fail "$name" "missing $dir/$rec or $dir/expected/$name.out"
        continue
    fi
    (cd "$dir" && "$STK" report "${argv[@]//@OUT@/$d/o/out}" "$rec" </dev/null >"$d/stdout" 2>"$d/stderr.raw")
    rc=$?
    for f in "$d"/o/*; do [ -f "$f" ] && cat "$f" >>"$d/stdout"; done
    sed "s|$d/o/out|@OUT@|g" "$d/stderr.raw" >"$d/stderr"
    want_err=$dir/expected/$name.err
    [ -f "$want_err" ] || want_err=/dev/null
    if [ "$rc" != "$status" ]; then
        fail "$name" "exit status $rc, want $status; stderr: $(head -c 300 "$d/stderr")"
    elif ! cmp -s "$d/stdout" "$dir/expected/$name.out"; then
        fail "$name" "output: $(first_difference "$d/stdout" "$dir/expected/$name.out")"
    elif ! cmp -s "$d/stderr" "$want_err"; then
        fail "$name" "stderr: $(first_difference "$d/stderr" "$want_err")"
    else
        pass "$name"
    fi
    rm -rf "$d"
done <"$dir/manifest"

# the manifest is the whole set: cases to run, and no expected file left without its case
[ "$cases" -ge 100 ] && pass manifest_cases || fail manifest_cases "only $cases cases in $dir/manifest"
stale=$(cd "$dir/expected" && for f in *.out *.err; do
    grep -qxF "${f%.*}" "$names" || echo "$f"
done)
expect_eq manifest_covers_expected "$stale" ""
