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
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

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
