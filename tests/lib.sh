# Shared helpers for integration tests. Each test prints exactly one line,
# "PASS suite/name", "FAIL suite/name: why" or, when this host cannot tell
# either way, "SKIP suite/name: why", which tests/run.sh counts (a skip is
# never a pass). Sourced by tests/integration/*.sh with SUITE set.

STK=${STK:-$BUILD/stk}

pass() { echo "PASS $SUITE/$1"; }
fail() { echo "FAIL $SUITE/$1: $2"; }
skip() { echo "SKIP $SUITE/$1: $2"; }

# expect_eq NAME GOT WANT
expect_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# within PCT GOT WANT: GOT is within PCT percent of WANT
within() { awk -v p="$1" -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; }
# expect_within NAME PCT GOT WANT
expect_within() {
    if within "$2" "$3" "$4"; then pass "$1"; else fail "$1" "got $3, want $4 +- $2%"; fi
}

# at_least NAME GOT MIN WHAT: GOT is a number no smaller than MIN
at_least() {
    if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then pass "$1"; else fail "$1" "$4: got ${2:-nothing}, want >= $3"; fi
}

# expect_contains NAME TEXT NEEDLE (an empty NEEDLE is in every text: it fails, as a check that cannot fail would be)
expect_contains() {
    [ -n "$3" ] || { fail "$1" "empty needle: nothing to look for"; return; }
    case "$2" in
        *"$3"*) pass "$1" ;;
        *) fail "$1" "'$3' not found in: $(printf '%s' "$2" | head -c 400)" ;;
    esac
}

# expect_bad_input NAME NEEDLE CMD...: bad input is refused with one line
# containing NEEDLE on stderr, nothing on stdout, and exit status 2
expect_bad_input() {
    local name=$1 needle=$2; shift 2
    run_capture "$@"
    if [ "$RC" -eq 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && [ -z "$OUT" ]; then
        expect_contains "bad_$name" "$ERR" "$needle"
    else
        fail "bad_$name" "rc=$RC out='$OUT' err='$ERR'"
    fi
}

# run_capture CMD... : sets OUT, ERR, RC
run_capture() {
    local o e
    o=$(mktemp) e=$(mktemp)
    "$@" >"$o" 2>"$e"
    RC=$?
    OUT=$(cat "$o") ERR=$(cat "$e")
    rm -f "$o" "$e"
}

# kernel_config NAME: prints y/m/n for CONFIG_NAME, or "?" when no config is readable
kernel_config() {
    local cfg
    if [ -r /proc/config.gz ]; then
        cfg=$(zcat /proc/config.gz)
    elif [ -r "/boot/config-$(uname -r)" ]; then
        cfg=$(cat "/boot/config-$(uname -r)")
    else
        echo "?"
        return
    fi
    local v
    v=$(printf '%s\n' "$cfg" | sed -n "s/^CONFIG_$1=\(.*\)/\1/p")
    echo "${v:-n}"
}

# kernel_at_least MAJOR MINOR
kernel_at_least() {
    local r maj min
    r=$(uname -r)
    maj=${r%%.*}
    min=${r#*.}
    min=${min%%[!0-9]*}
    [ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# cpu_ticks PID [TID]: user + system CPU time so far, in clock ticks (/proc stat fields 14, 15)
cpu_ticks() {
    local f=/proc/$1/stat
    [ -n "${2:-}" ] && f=/proc/$1/task/$2/stat
    sed 's/.*) //' "$f" | awk '{ print $12 + $13 }'
}
# thread_by_comm PID COMM: the TID of PID's thread named COMM
thread_by_comm() {
    local t
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { echo "${t##*/}"; return 0; }
    done
    return 1
}
# kill9_leaves_nothing PID: kill -9 a running stk; none of the BPF programs it
# held (by id, from its fdinfo: another stk may be tracing at the same time)
# nor their links may outlive it. The kernel frees programs asynchronously
# (RCU): allow it 5 s.
kill9_leaves_nothing() {
    local kp=$1 ids id left=0 links=0
    require_bpftool
    ids=$(grep -h '^prog_id:' /proc/"$kp"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
    [ -n "$ids" ] && pass kill9_programs_seen || fail kill9_programs_seen "no prog_id in /proc/$kp/fdinfo"
    { kill -9 "$kp"; wait "$kp"; } 2>/dev/null
    for _ in $(seq 50); do
        left=0
        for id in $ids; do bpftool prog show id "$id" >/dev/null 2>&1 && left=$((left + 1)); done
        [ "$left" -eq 0 ] && break
        sleep 0.1
    done
    expect_eq kill9_no_programs_left "$left" 0
    for id in $ids; do links=$((links + $(bpftool link list 2>/dev/null | grep -c "prog $id\b"))); done
    expect_eq kill9_no_links_left "$links" 0
}
yesno() { if "$@"; then echo yes; else echo no; fi; }
# require_bpftool: the checks that count BPF programs and links ask bpftool; without it
# they would count none and pass, so its absence is a failure of its own.
require_bpftool() {
    need_command bpftool bpftool ||
        fail bpftool_installed "no bpftool, and apt-get could not install it: programs and links left behind would go unseen"
}
# need_command CMD PACKAGE: CMD on PATH, installing Debian's PACKAGE when it is not
# (apt's lists read first: a fresh host has none). Succeeds when CMD is there after.
need_command() {
    command -v "$1" >/dev/null 2>&1 && return 0
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2"; } >/dev/null 2>&1
    command -v "$1" >/dev/null 2>&1
}

# wait_attached PID...: until each stk PID holds a BPF link (it has attached) or has
# exited, 20 s at most each: on a busy host starting takes seconds, and a workload
# timed from its start would be half over before the capture began.
wait_attached() {
    local p
    for p in "$@"; do
        for _ in $(seq 400); do
            grep -qs '^link_type:' /proc/"$p"/fdinfo/* && break
            kill -0 "$p" 2>/dev/null || break
            sleep 0.05
        done
    done
}

# duckdb_begin: DuckDB from npm in $BUILD/node (installed once), for q SQL, which prints its
# rows as tab-separated lines (tests/integration/duckdb_query.mjs). A failed install is one
# FAIL line and the suite ends. Needs tmp.
duckdb_begin() {
    NODE_DIR=$BUILD/node
    if [ ! -d "$NODE_DIR/node_modules/@duckdb/node-api" ] &&
        ! npm install --prefix "$NODE_DIR" --no-audit --no-fund @duckdb/node-api >"$tmp/npm.log" 2>&1; then
        fail tools_npm "npm install @duckdb/node-api failed: $(tail -3 "$tmp/npm.log" | tr '\n' ' ')"
        exit 1
    fi
    cp "$(dirname "${BASH_SOURCE[0]}")/integration/duckdb_query.mjs" "$NODE_DIR/"
}
q() { node "$NODE_DIR/duckdb_query.mjs" "$1" 2>&1; }

# wait_line FILE REGEX PID: until FILE holds a line matching REGEX (20 s at most, or PID gone):
# a tracer's own 'tracing ... after start' (-v), when all its programs are attached
wait_line() {
    for _ in $(seq 400); do
        grep -qs "$2" "$1" && return
        kill -0 "$3" 2>/dev/null || return
        sleep 0.05
    done
}

# Workloads a suite runs in the background, killed when it ends. A suite sets
# tmp (its scratch directory) and calls workloads_begin, which installs the
# EXIT trap that kills them and removes $tmp.
workloads_begin() {
    pids=()
    trap 'stop_workloads; rm -rf "$tmp"' EXIT
}
# start_workload CMD... : runs it in the background, waits for "ready PID", sets WPID
# (and WOUT, the file its output goes to)
start_workload() {
    local out=$tmp/ready.$RANDOM
    WOUT=$out
    : >"$out" # before the background redirect makes it: sed may look first
    "$@" >"$out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        WPID=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$out" 2>/dev/null)
        [ -n "$WPID" ] && return 0
        sleep 0.05
    done
    WPID=$!
}
# Ends every workload started so far, so the next measurement has idle CPUs.
stop_workloads() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    pids=()
}
