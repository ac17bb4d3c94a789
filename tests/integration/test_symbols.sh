#!/bin/bash
# needs: root (perf_event BPF programs)
# Symbols where the host has none: a stripped workload whose debug file lives
# only in build/tests/debugstore (no debuglink, not under /usr/lib/debug).
#   pprof: the executable is the main binary, mappings keep build IDs and file
#          offsets, and the real pprof (built from Debian's source package)
#          re-symbolizes the profile off-host through PPROF_BINARY_PATH.
SUITE=symbols
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
STORE=$BUILD/tests/debugstore
tmp=$(mktemp -d)
workloads_begin

# start_workload CMD... : runs it in the background, waits for "ready PID", sets WPID
start_workload() {
    local out=$tmp/ready.$RANDOM
    "$@" >"$out" 2>&1 &
    pids+=($!)
    WPID=$!
    for _ in $(seq 100); do grep -q '^ready' "$out" && return 0; sleep 0.05; done
}
build_id_of() { readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | head -1; }

# The real pprof, built once from golang-github-google-pprof-dev's source (GOPATH mode, offline).
PPROF=$BUILD/tests/pprof
if [ ! -x "$PPROF" ]; then
    GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$BUILD/tests/gocache GOFLAGS= \
        go build -o "$PPROF" github.com/google/pprof >"$tmp/go.log" 2>&1
fi
[ -x "$PPROF" ] && pass pprof_tool_built || fail pprof_tool_built "go build: $(head -c 300 "$tmp/go.log")"

# --- pprof: main binary, build ID, re-symbolized off-host ---
nodebug_id=$(build_id_of "$W/burn_nodebug")
start_workload "$W/burn_nodebug" 30
run_capture "$STK" profile -p "$WPID" -o "$tmp/nd.pb.gz" -o "$tmp/nd.folded" 2
expect_eq pprof_capture_rc "$RC" 0
if grep -q known_leaf "$tmp/nd.folded"; then
    fail stripped_has_no_names "the debug file was found locally: $(head -c 300 "$tmp/nd.folded")"
else pass stripped_has_no_names; fi
top=$("$PPROF" -top "$tmp/nd.pb.gz" 2>&1)
expect_contains pprof_main_binary_is_exe "$top" "File: burn_nodebug"
expect_contains pprof_main_binary_build_id "$top" "Build ID: $nodebug_id"
# pprof 0.0~git2021 cannot place addresses in a bare debug file (its load segments have
# no file offsets): the stripped binary and its debug file joined by eu-unstrip, as a user would.
mkdir -p "$tmp/binpath/$nodebug_id" "$tmp/wrong"
eu-unstrip -o "$tmp/binpath/$nodebug_id/burn_nodebug" "$W/burn_nodebug" "$STORE/burn_nodebug" 2>"$tmp/unstrip.err"
traces=$(PPROF_BINARY_PATH=$tmp/binpath "$PPROF" -traces "$tmp/nd.pb.gz" 2>&1)
if printf '%s\n' "$traces" | awk '/known_leaf/ { l = NR } /known_mid/ && l { m = NR } /[ ]main$/ && m { ok = 1 } END { exit !ok }'
then pass pprof_resymbolized_with_binary_path
else fail pprof_resymbolized_with_binary_path "$(printf '%s' "$traces" | head -c 500) $(cat "$tmp/unstrip.err")"; fi
# Another build under the same name is refused by its build ID.
cp "$W/burn_nopie" "$tmp/wrong/burn_nodebug"
traces=$(PPROF_BINARY_PATH=$tmp/wrong "$PPROF" -traces "$tmp/nd.pb.gz" 2>&1)
expect_contains pprof_other_build_refused "$traces" "build-id mismatch"
if printf '%s' "$traces" | grep -q known_leaf; then fail pprof_other_build_not_used "$(printf '%s' "$traces" | head -c 300)"
else pass pprof_other_build_not_used; fi

# --- stripped functions keep distinct, stable names: module+0xSTART from CFI ---
# The pprof capture above: known_leaf/known_mid/main by their ELF start addresses.
start_of() { echo "0x$(nm "$1" | awk -v f="$2" '$3 == f { sub(/^0+/, "", $1); print $1 }')"; }
leaf_start=$(start_of "$W/burn_pie" known_leaf)
mid_start=$(start_of "$W/burn_pie" known_mid)
main_start=$(start_of "$W/burn_pie" main)
expect_contains cfi_names_folded "$(cat "$tmp/nd.folded")" \
    ";burn_nodebug+$main_start;burn_nodebug+$mid_start;burn_nodebug+$leaf_start "
# every format: text (and -v), pmp, svg, pprof function names
start_workload "$W/burn_nodebug" 30
run_capture "$STK" profile -p "$WPID" -o "$tmp/nd.txt" -o "$tmp/nd.pmp" -o "$tmp/nd.svg" -o "$tmp/nd2.pb.gz" 2
expect_contains cfi_names_text "$(cat "$tmp/nd.txt")" "    burn_nodebug+$leaf_start
    burn_nodebug+$mid_start
    burn_nodebug+$main_start"
expect_contains cfi_names_pmp "$(cat "$tmp/nd.pmp")" " burn_nodebug+$leaf_start,burn_nodebug+$mid_start,burn_nodebug+$main_start"
expect_contains cfi_names_svg "$(cat "$tmp/nd.svg")" "burn_nodebug+$leaf_start"
expect_contains cfi_names_pprof "$("$PPROF" -top "$tmp/nd2.pb.gz" 2>&1)" "burn_nodebug+$leaf_start"
run_capture "$STK" profile -p "$WPID" -v 1
# (with --unwind dwarf each user frame also says how it was found: regs, cfi, fp)
if printf '%s\n' "$OUT" | grep -Eq "^    burn_nodebug\+$leaf_start\+0x[0-9a-f]+ \(0x[0-9a-f]+ .*/burn_nodebug( [a-z]+)?\)$"
then pass cfi_names_verbose_offsets; else fail cfi_names_verbose_offsets "$(printf '%s' "$OUT" | head -c 400)"; fi
kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null

# --- ~4,000 distinct stacks through static functions, stripped: they stay distinct ---
"$W/manystacks_stripped" 20 >/dev/null &
pids+=($!)
mpid=$!
run_capture "$STK" profile -p "$mpid" -F 499 -f 4
kill -9 "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null
printf '%s\n' "$OUT" > "$tmp/ms.folded"
nm "$W/manystacks" | awk 'toupper($2) == "T" { sub(/^0+/, "", $1); print "0x" $1, $3 }' > "$tmp/ms.syms"
# Each synthetic frame must be the exact start of one real function of the unstripped twin.
awk -v syms="$tmp/ms.syms" '
    BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); name[f[1]] = f[2] } }
    {
        samples += $NF; line = $0; sub(/ [0-9]+$/, "", line); n = split(line, fr, ";"); real = ""
        for (i = 1; i <= n; i++) {
            if (fr[i] ~ /^manystacks_stripped\+0x/) {
                a = substr(fr[i], 21); synth++
                if (!(a in name)) { bad++; print "not a function start: " fr[i] > "/dev/stderr" } else fr[i] = name[a]
            } else if (fr[i] == "[unknown]") unknown++
            real = real ";" fr[i]
        }
        if (line ~ /manystacks_stripped\+0x/) distinct[real]++
    }
    END {
        printf "samples %.0f synthetic %.0f bad %.0f unknown %.0f distinct %.0f\n", samples, synth, bad, unknown, length(distinct)
    }' "$tmp/ms.folded" > "$tmp/ms.summary" 2>"$tmp/ms.bad"
read -r _ samples _ synth _ bad _ unknown _ distinct < "$tmp/ms.summary"
echo "manystacks: $(cat "$tmp/ms.summary")"
expect_eq manystacks_frames_are_function_starts "bad $bad, any $((synth > 0))" "bad 0, any 1"
expect_eq manystacks_no_unknown_frames "$unknown" 0
# 4,096 stacks recur evenly: N samples draw about 4096 (1 - e^(-N/4096)) distinct ones (N=1000: 890);
# merged names would leave a handful. At least a third of that, from at least 300 samples.
want=$(awk -v n="$samples" 'BEGIN { printf "%.0f", int(4096 * (1 - exp(-n / 4096)) / 3) }')
if [ "$samples" -ge 300 ] && [ "$distinct" -ge "$want" ]; then pass manystacks_distinct_stacks
else fail manystacks_distinct_stacks "$(cat "$tmp/ms.summary"), want >= 300 samples and >= $want distinct; $(head -c 300 "$tmp/ms.bad")"; fi

# --- debuginfod: a real server (Debian's debuginfod) holding the only copy of the debug file ---
# Everything network runs in a private network namespace with just loopback: the servers
# are reachable on 127.0.0.1 only, and nothing outside can answer.
unshare -n sleep 600 &
netns_holder=$!
pids+=($netns_holder)
sleep 0.1
innet() { nsenter --net=/proc/$netns_holder/ns/net "$@"; }
# innet_bg LOG CMD...: in the background, nsenter itself (it execs CMD) so cleanup's kill reaches CMD
innet_bg() {
    local log=$1; shift
    nsenter --net=/proc/$netns_holder/ns/net "$@" >"$log" 2>&1 &
    pids+=($!)
}
innet ip link set lo up
innet_bg "$tmp/debuginfod.log" debuginfod -F -p 8002 -d "$tmp/debuginfod.sqlite" -t 0 -g 0 -c 1 "$STORE"
served=0
for _ in $(seq 200); do
    if innet curl -sf -o /dev/null "http://127.0.0.1:8002/buildid/$nodebug_id/debuginfo"; then served=1; break; fi
    sleep 0.1
done
expect_eq debuginfod_server_serves "$served" 1
start_workload "$W/burn_nodebug" 60
dpid=$WPID
# dstk CACHE URLS ARGS...: stk profile of the workload with that cache and server list
dstk() {
    local cache=$1 urls=$2; shift 2
    run_capture innet env DEBUGINFOD_URLS="$urls" DEBUGINFOD_CACHE_PATH="$cache" DEBUGINFOD_TIMEOUT=2 \
        "$STK" profile -p "$dpid" -f "$@" 1
}
chain=";main;known_mid;known_leaf "
dstk "$tmp/cache" "http://127.0.0.1:8002"
expect_eq debuginfod_rc "$RC" 0
expect_root_chain() { # NAME COMM: COMM's folded line ends in __libc_start_call_main$chain (what is below it varies)
    if printf '%s\n' "$OUT" | grep -q "^$2;\(.*;\)\{0,1\}__libc_start_call_main$chain"; then pass "$1"
    else fail "$1" "'$2;...;__libc_start_call_main$chain' not found in: $(printf '%s' "$OUT" | head -c 400)"; fi
}
expect_root_chain debuginfod_names_resolve burn_nodebug
expect_contains debuginfod_progress_line "$ERR" "debuginfod: fetching debug info for burn_nodebug ($nodebug_id) from http://127.0.0.1:8002"
[ -f "$tmp/cache/$nodebug_id/debuginfo" ] && pass debuginfod_cached_file || fail debuginfod_cached_file "$(ls -R "$tmp/cache" 2>&1 | head -5)"
expect_eq debuginfod_cached_file_mode "$(stat -c %a "$tmp/cache/$nodebug_id/debuginfo" 2>/dev/null)" 600
expect_eq debuginfod_no_temp_left "$(find "$tmp/cache" -name '.stk-*' | wc -l)" 0
# second run: from the cache, with no server at all
dstk "$tmp/cache" "http://127.0.0.1:8002" -v
expect_contains debuginfod_second_run_cached "$ERR" "debug info for burn_nodebug ($nodebug_id) from the cache $tmp/cache"
if printf '%s' "$ERR" | grep -q "fetching debug info"; then fail debuginfod_second_run_no_fetch "$ERR"
else pass debuginfod_second_run_no_fetch; fi
expect_contains debuginfod_second_run_names "$OUT" "$chain"
# --no-debuginfod: nothing fetched, functions keep their CFI names
dstk "$tmp/cache-off" "http://127.0.0.1:8002" --no-debuginfod
expect_contains no_debuginfod_cfi_names "$OUT" "burn_nodebug+$leaf_start "
[ -e "$tmp/cache-off" ] && fail no_debuginfod_nothing_cached "$(ls -R "$tmp/cache-off")" || pass no_debuginfod_nothing_cached
# elfutils' default cache: $XDG_CACHE_HOME/debuginfod_client when DEBUGINFOD_CACHE_PATH is unset
run_capture innet env -u DEBUGINFOD_CACHE_PATH DEBUGINFOD_URLS=http://127.0.0.1:8002 XDG_CACHE_HOME="$tmp/xdg" \
    HOME="$tmp/home" "$STK" profile -p "$dpid" -f 1
expect_contains debuginfod_default_cache_names "$OUT" "$chain"
[ -f "$tmp/xdg/debuginfod_client/$nodebug_id/debuginfo" ] && pass debuginfod_default_cache_xdg ||
    fail debuginfod_default_cache_xdg "$(find "$tmp/xdg" 2>&1 | head -5)"
# a symlink in the cache is never followed: the fetch is refused, nothing lands at its target
mkdir -p "$tmp/cache-link" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/cache-link/$nodebug_id"
dstk "$tmp/cache-link" "http://127.0.0.1:8002"
expect_eq cache_symlink_rc "$RC" 0
expect_eq cache_symlink_not_followed "$(ls -A "$tmp/elsewhere" | wc -l)" 0
expect_contains cache_symlink_results_printed "$OUT" "burn_nodebug+$leaf_start "

# a process in its own mount namespace (a container's view): found by build ID all the same
mkdir -p "$tmp/priv"
start_workload unshare -m --propagation private sh -c \
    "mount -t tmpfs none '$tmp/priv' && cp '$W/burn_nodebug' '$tmp/priv/burn_ns' && exec '$tmp/priv/burn_ns' 30"
[ -e "$tmp/priv/burn_ns" ] && fail container_setup "binary visible outside the namespace"
run_capture innet env DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH="$tmp/cache-ns" \
    "$STK" profile -p "$WPID" -f 1
expect_root_chain container_process_names burn_ns
expect_contains container_process_fetched "$ERR" "fetching debug info for burn_ns ($nodebug_id)"
kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null

# --- bad servers: results are still printed, with the reason on stderr ---
fake() { # MODE PORT [FILE]
    innet_bg "$tmp/fake.$1" python3 "$(dirname "$0")/fake_debuginfod.py" "$2" "$1" ${3:+"$3"}
    for _ in $(seq 100); do grep -qs ready "$tmp/fake.$1" && return; sleep 0.05; done
}
bad_case() { # NAME PORT WANT-IN-STDERR [ENV...]
    local name=$1 port=$2 want=$3; shift 3
    run_capture innet env DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$tmp/cache-$name" \
        DEBUGINFOD_TIMEOUT=2 "$@" timeout 120 "$STK" profile -p "$dpid" -f 1
    expect_eq "bad_${name}_rc" "$RC" 0
    expect_contains "bad_${name}_results" "$OUT" "burn_nodebug+$leaf_start "
    expect_contains "bad_${name}_reason" "$ERR" "$want"
    expect_eq "bad_${name}_nothing_cached" "$(find "$tmp/cache-$name" -type f 2>/dev/null | wc -l)" 0
}
fake hang 8101
bad_case hanging_server 8101 "debuginfod: burn_nodebug: http://127.0.0.1:8101/buildid/$nodebug_id/debuginfo: "
fake garbage 8102
bad_case garbage 8102 "not an ELF file with build ID $nodebug_id, refused"
fake huge 8103
bad_case huge_file 8103 "larger than 1000000 bytes, refused" DEBUGINFOD_MAXSIZE=1000000
fake announced 8104
bad_case announced_huge_file 8104 "announced more than 1000000 bytes, refused" DEBUGINFOD_MAXSIZE=1000000
fake file 8105 "$W/burn_nopie"
bad_case build_id_mismatch 8105 "not an ELF file with build ID $nodebug_id, refused"
bad_case unreachable 8199 "debuginfod: burn_nodebug: http://127.0.0.1:8199/buildid/"
# the total budget across servers: a hanging one first, the real one after it is not reached in time
run_capture innet env DEBUGINFOD_URLS="http://127.0.0.1:8101 http://127.0.0.1:8002" \
    DEBUGINFOD_CACHE_PATH="$tmp/cache-budget" DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_MAXTIME=1 \
    "$STK" profile -p "$dpid" -f 1
expect_eq total_budget_rc "$RC" 0
expect_contains total_budget_results "$OUT" "burn_nodebug+$leaf_start "
expect_contains total_budget_reason "$ERR" "the total time for fetches (1 s) is spent"
# several servers (space-separated): an unreachable one, then the real one
run_capture innet env DEBUGINFOD_URLS="http://127.0.0.1:8199  http://127.0.0.1:8002/" \
    DEBUGINFOD_CACHE_PATH="$tmp/cache-two" "$STK" profile -p "$dpid" -f 1
expect_contains debuginfod_second_server_used "$OUT" "$chain"

# --- inlined frames and source lines from DWARF: outer -> inlined_middle -> inlined_hot ---
src=$(cd "$(dirname "$0")/../workloads" && pwd)/inline_chain.c
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
hot_first=$(line_of 'inlined_hot(unsigned long x)$')
hot_last=$((hot_first + 7))
middle_call=$(line_of 'r = inlined_hot(')
outer_call=$(line_of 'r = inlined_middle(')
start_workload "$W/inline_chain" 30
run_capture "$STK" profile -p "$WPID" -o "$tmp/ic.folded" -o "$tmp/ic.txt" -o "$tmp/ic.pmp" -o "$tmp/ic.svg" \
    -o "$tmp/ic.pb.gz" --lines 3
expect_eq inline_capture_rc "$RC" 0
in_outer=$(awk '/;outer(;|$| )/ { s += $NF } END { print s + 0 }' "$tmp/ic.folded")
chained=$(awk '/;main;outer;inlined_middle;inlined_hot( |;)/ { s += $NF } END { print s + 0 }' "$tmp/ic.folded")
# outer's few own instructions (prologue, the call to settle) are outside the inlined code
if [ "$in_outer" -ge 10 ] && [ $((chained * 10)) -ge $((in_outer * 9)) ]; then pass inline_chain_folded
else fail inline_chain_folded "$chained of $in_outer samples in outer have ;main;outer;inlined_middle;inlined_hot: $(head -c 300 "$tmp/ic.folded")"; fi
expect_contains inline_chain_pmp "$(cat "$tmp/ic.pmp")" " inlined_hot,inlined_middle,outer,main"
expect_contains inline_chain_svg "$(cat "$tmp/ic.svg")" "inlined_middle"
if grep -Pzq "(^|\n)    inlined_hot \(inlined\) at [^\n]*inline_chain.c:($(seq -s '|' "$hot_first" "$hot_last"))\n    inlined_middle \(inlined\) at [^\n]*inline_chain.c:$middle_call\n    outer at [^\n]*inline_chain.c:$outer_call\n    main at [^\n]*inline_chain.c:[0-9]+\n" "$tmp/ic.txt"
then pass inline_chain_text_lines; else fail inline_chain_text_lines "want lines $hot_first-$hot_last, $middle_call, $outer_call: $(head -c 500 "$tmp/ic.txt")"; fi
traces=$("$PPROF" -traces "$tmp/ic.pb.gz" 2>&1)
if printf '%s\n' "$traces" | awk '{ sub(/^ *[0-9]* */, ""); l[NR] = $0 }
        END { for (i = 1; i <= NR; i++) if (l[i] == "inlined_hot (inline)" && l[i + 1] == "inlined_middle (inline)" &&
                                           l[i + 2] == "outer" && l[i + 3] == "main") exit 0; exit 1 }'
then pass inline_chain_pprof_lines; else fail inline_chain_pprof_lines "$(printf '%s' "$traces" | head -c 500)"; fi
lines=$("$PPROF" -lines -top "$tmp/ic.pb.gz" 2>&1)
expect_contains inline_chain_pprof_file_line "$lines" "inline_chain.c:$middle_call"
run_capture "$STK" profile -p "$WPID" -v 1
if printf '%s\n' "$OUT" | grep -Eq '^    inlined_hot \(inlined\)$' && printf '%s\n' "$OUT" | grep -Eq '^    outer\+0x[0-9a-f]+ \(0x'
then pass inline_chain_verbose_marked; else fail inline_chain_verbose_marked "$(printf '%s' "$OUT" | head -c 400)"; fi
kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
# DWARF libdw rejects (a unit length no DWARF may have): skipped, symbols stay, the reason with -v
cp "$W/inline_chain" "$tmp/inline_bad"
python3 - "$tmp/inline_bad" <<'PY'
import re, struct, subprocess, sys
out = subprocess.check_output(["readelf", "-SW", sys.argv[1]]).decode()
off = int(re.search(r"\.debug_info\s+\S+\s+\S+\s+(\S+)", out).group(1), 16)
with open(sys.argv[1], "r+b") as f:
    f.seek(off)
    f.write(struct.pack("<I", 0xfffffff0))
PY
start_workload "$tmp/inline_bad" 30
run_capture "$STK" profile -p "$WPID" -f -v 1
expect_eq bad_dwarf_rc "$RC" 0
expect_contains bad_dwarf_symbols_kept "$OUT" ";main;outer"
if printf '%s' "$OUT" | grep -q inlined_; then fail bad_dwarf_no_inlines "$OUT"; else pass bad_dwarf_no_inlines; fi
expect_contains bad_dwarf_reason_verbose "$ERR" "inline_bad: DWARF rejected by libdw: invalid DWARF"
run_capture "$STK" profile -p "$WPID" -f 1
if printf '%s' "$ERR" | grep -q "DWARF rejected"; then fail bad_dwarf_quiet_without_v "$ERR"; else pass bad_dwarf_quiet_without_v; fi
kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null

# --- https: a server with a certificate from a test CA, trusted through SSL_CERT_FILE ---
# (named localhost: mbedtls 2.28 matches DNS names, not IP-address certificates)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost" \
    -keyout "$tmp/tls.key" -out "$tmp/tls.crt" >/dev/null 2>&1
innet_bg "$tmp/fake.tls" python3 "$(dirname "$0")/fake_debuginfod.py" 8443 file "$STORE/burn_nodebug" \
    "$tmp/tls.crt" "$tmp/tls.key"
for _ in $(seq 100); do grep -qs ready "$tmp/fake.tls" && break; sleep 0.05; done
start_workload "$W/burn_nodebug" 30
dpid=$WPID
run_capture innet env DEBUGINFOD_URLS=https://localhost:8443 DEBUGINFOD_CACHE_PATH="$tmp/cache-tls" \
    SSL_CERT_FILE="$tmp/tls.crt" "$STK" profile -p "$dpid" -f 1
expect_contains https_names_resolve "$OUT" "$chain"
expect_contains https_progress_line "$ERR" "fetching debug info for burn_nodebug ($nodebug_id) from https://localhost:8443"
# the same server without trusting its CA: refused by certificate verification, results printed
run_capture innet env DEBUGINFOD_URLS=https://localhost:8443 DEBUGINFOD_CACHE_PATH="$tmp/cache-tls2" \
    "$STK" profile -p "$dpid" -f 1
expect_contains https_untrusted_results "$OUT" "burn_nodebug+$leaf_start "
expect_contains https_untrusted_refused "$ERR" "debuginfod: burn_nodebug: https://localhost:8443/buildid/"
expect_eq https_untrusted_nothing_cached "$(find "$tmp/cache-tls2" -type f 2>/dev/null | wc -l)" 0
