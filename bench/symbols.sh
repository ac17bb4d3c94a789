#!/bin/bash
# bench/symbols: what symbols cost after a capture.
#  1. a 10-second whole-host capture (stk profile -F 99) while NV (24) distinct
#     programs with DWARF (inlined frames, lines) burn CPU: stk's resolve and
#     print time and peak RSS, with their DWARF and with it stripped (CFI names
#     only); perf report --inline on a perf record of the same load, same run.
#  2. the same programs stripped, their debug files only on a local debuginfod
#     server (private network namespace): resolve time with a cold cache vs a
#     warm one.
#  3. the binary's size.
# Medians of REPEAT runs. Needs root. Installs linux-perf, time and debuginfod if missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
NV=${NV:-24}
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

bench_install bench/symbols linux-perf time debuginfod
burn() { nice -n 10 "$1" 60 >/dev/null 2>&1 & disown; } # reaped by init: no "Killed" noise

# NV distinct programs (one extra function each, so each has its own build ID)
mkdir -p "$tmp/dwarf" "$tmp/nodwarf" "$tmp/stripped" "$tmp/store"
for i in $(seq "$NV"); do
    { cat "$root/bench/manystacks.c"; echo "int bench_variant_$i(void) { return $i; }"; } > "$tmp/v$i.c"
    gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/dwarf/ms$i" "$tmp/v$i.c"
    strip -g -o "$tmp/nodwarf/ms$i" "$tmp/dwarf/ms$i"
    objcopy --only-keep-debug "$tmp/dwarf/ms$i" "$tmp/store/ms$i.debug"
    strip --strip-all -o "$tmp/stripped/ms$i" "$tmp/dwarf/ms$i"
done

# capture DIR SECS EXTRA...: burners from DIR, stopped just before the capture ends so
# the timing is stk's own work; prints "ms stacks rss_kb"
capture() {
    local dir=$1 secs=$2; shift 2
    for i in $(seq "$NV"); do burn "$dir/ms$i"; done
    sleep 0.5
    ( sleep "$(awk -v s="$secs" 'BEGIN { print s - 0.3 }')"; pkill -STOP -f "$dir/ms" ) &
    "$@" /usr/bin/time -f "%M" -o "$tmp/rss" "$STK" profile -F 99 -v --lines -o "$tmp/out.txt" "$secs" 2>"$tmp/err"
    cp "$tmp/out.txt" "$dir.out.txt"
    pkill -9 -f "$dir/ms" 2>/dev/null
    wait 2>/dev/null
    sed -n 's/^profile: resolved and printed \([0-9]*\) stacks in \([0-9.]*\) ms$/\2 \1/p' "$tmp/err" | tr '\n' ' '
    cat "$tmp/rss"
}
col() { awk -v c="$1" '{ print $c }'; }

dw=() nd=()
for _ in $(seq "$REPEAT"); do
    dw+=("$(capture "$tmp/dwarf" 10)")
    nd+=("$(capture "$tmp/nodwarf" 10)")
done
files=$(sed -n 's/.*symbolizer: \([0-9]*\) processes.*, \([0-9]*\) files parsed.*/\1 processes, \2 files/p' "$tmp/err")
inl=$(grep -c '(inlined)' "$tmp/dwarf.out.txt")

# perf record of the same load, perf report --inline (srcline through libdw/addr2line)
for i in $(seq "$NV"); do burn "$tmp/dwarf/ms$i"; done
sleep 0.5
perf record -F 99 -a -g -o "$tmp/perf.data" -- sleep 10 >/dev/null 2>&1
pkill -9 -f "$tmp/dwarf/ms" 2>/dev/null; wait 2>/dev/null
pr=()
for _ in $(seq "$REPEAT"); do
    s=$(date +%s%N)
    timeout 300 perf report -i "$tmp/perf.data" --stdio --inline -g caller --sort comm,sym >/dev/null 2>&1
    pr+=("$(( ($(date +%s%N) - s) / 1000000 ))")
done

# debuginfod: the stripped programs' debug files only on a local server
unshare -n sleep 3600 &
ns=$!
sleep 0.1
innet() { nsenter --net=/proc/$ns/ns/net "$@"; }
innet ip link set lo up
nsenter --net=/proc/$ns/ns/net debuginfod -F -p 8002 -d "$tmp/db.sqlite" -t 0 -g 0 -c 1 "$tmp/store" >/dev/null 2>&1 &
id1=$(readelf -n "$tmp/stripped/ms1" | sed -n 's/.*Build ID: //p')
for _ in $(seq 300); do innet curl -sf -o /dev/null "http://127.0.0.1:8002/buildid/$id1/debuginfo" && break; sleep 0.1; done
cold=() warm=()
for r in $(seq "$REPEAT"); do
    rm -rf "$tmp/cache"
    cold+=("$(capture "$tmp/stripped" 3 innet env DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH="$tmp/cache")")
    fetched=$(find "$tmp/cache" -name debuginfo | wc -l)
    warm+=("$(capture "$tmp/stripped" 3 innet env DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH="$tmp/cache")")
done
cache_kb=$(du -sk "$tmp/cache" | col 1)

m() { printf '%s\n' "$@" | col "$c" | median; }
printf '\n%s\n' "stk symbolization ($NV programs with DWARF burning CPU, 10 s at 99 Hz, whole host; $files; medians of $REPEAT)"
printf '| %-58s | %s |\n' measure value
printf '|%s|%s|\n' "$(printf -- '-%.0s' $(seq 60))" "-------"
c=1; printf '| %-58s | %s ms |\n' "resolve + print, with DWARF (inlines, --lines)" "$(m "${dw[@]}")"
c=2; printf '| %-58s | %s |\n' "unique stacks" "$(m "${dw[@]}")"
c=3; printf '| %-58s | %s MB |\n' "peak RSS of stk, with DWARF" "$(awk -v k="$(m "${dw[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')"
printf '| %-58s | %s |\n' "inlined frames printed (last run with DWARF)" "$inl"
c=1; printf '| %-58s | %s ms |\n' "resolve + print, DWARF stripped (symbols + CFI only)" "$(m "${nd[@]}")"
c=3; printf '| %-58s | %s MB |\n' "peak RSS of stk, DWARF stripped" "$(awk -v k="$(m "${nd[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')"
printf '| %-58s | %s ms |\n' "perf report --inline on perf record -g of the same load" "$(printf '%s\n' "${pr[@]}" | median)"
c=1; printf '| %-58s | %s ms |\n' "debuginfod, cold cache ($fetched debug files fetched), 3 s capture" "$(m "${cold[@]}")"
c=1; printf '| %-58s | %s ms |\n' "debuginfod, warm cache ($cache_kb KB), 3 s capture" "$(m "${warm[@]}")"
printf '| %-58s | %s bytes |\n' "stk binary, stripped" "$(stat -c %s "$STK")"
