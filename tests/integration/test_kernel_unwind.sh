#!/bin/bash
# needs: root (perf_event and tracing BPF programs)
# The kernel unwinder (--unwind cfi) where it differs from a stack copy:
# chains deeper than any copy reaches; processes that appear, exec, change
# their mappings or exit while the capture runs (the copy path serves their
# first samples, the tables follow them); stacks that are wrong or endless
# to walk; tables and chain store too small (reported, the copy path serves).
# On a kernel without bpf_loop the rung cannot run: the suite says so and
# checks that the default climbed down.
SUITE=kernel_unwind
. "$(dirname "$0")/../lib.sh"
require_bpftool
W=$BUILD/tests/workloads
tmp=$(mktemp -d)
workloads_begin

# share FOLDED NEEDLE: percent of the samples (values) whose folded stack contains NEEDLE
share() {
    printf '%s\n' "$1" | awk -v needle="$2" '
        { total += $NF; if (index($0, needle)) hit += $NF }
        END { printf "%.0f\n", total ? int(hit * 100 / total) : -1 }'
}
# stat_of TEXT LABEL: the number before LABEL in a -v line ("... 12 walked in the kernel ...")
stat_of() { printf '%s\n' "$1" | sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p" | head -1; }

if ! bpftool feature probe kernel 2>/dev/null | grep -q '^	- bpf_loop$'; then
    run_capture "$STK" profile -v -U 1
    expect_contains no_bpf_loop_climbs_down "$ERR" "passed over cfi needs bpf_loop"
    exit 0
fi

deep="main;level_01;level_02;level_03;level_04;level_05;level_06;level_07;level_08;level_09;level_10;level_11;level_12;level_13;level_14;level_15;level_16;level_17;level_18;level_19;level_20;level_21;level_22;level_23;level_24;level_25;level_26;level_27;level_28;level_29;level_30;level_31;level_32;level_33;level_34;level_35;level_36;level_37;level_38;level_39;level_40;level_41;level_42;level_43;level_44;level_45;level_46;level_47;level_48;level_49;leaf"

# --- 49 levels of 700-byte frames: whole in the kernel walk, cut short in an 8 KiB copy ---
start_workload "$W/deep" spin 60
run_capture "$STK" profile --no-inline -U -p "$WPID" -f 3
at_least deep_profile_whole "$(share "$OUT" "deep;_start;__libc_start_main;__libc_start_call_main;$deep")" 95 \
    "percent of samples with all 49 levels up to _start"
run_capture "$STK" profile --no-inline -U --unwind dwarf -p "$WPID" -f 2
dwarf_share=$(share "$OUT" "$deep")
if [ "$dwarf_share" -lt 50 ]; then pass deep_copy_falls_short
else fail deep_copy_falls_short "an 8 KiB copy reached the root in $dwarf_share% (the frames must be large)"; fi
stop_workloads
start_workload "$W/deep" sleep 60
run_capture "$STK" offcputime --no-inline -p "$WPID" -f 3
at_least deep_offcputime_whole "$(share "$OUT" "$deep;__nanosleep")" 95 "percent of off-CPU time with all 49 levels"
stop_workloads

# --- a process started mid-capture: its first samples take the copy path, then the tables.
# The capture is of the whole host, so the workload runs under a name of its own (another
# suite on this host may be running nofp too) ---
mine=nofp$$
cp "$W/nofp" "$tmp/$mine"
( sleep 1; exec "$tmp/$mine" chain 3 >/dev/null ) &
pids+=($!)
run_capture "$STK" profile --no-inline -U -v -F 199 -f 4
mid=$(printf '%s\n' "$OUT" | grep "^$mine;")
at_least midcapture_samples "$(printf '%s\n' "$mid" | awk '{ n += $NF } END { print n + 0 }')" 100 "samples of nofp"
at_least midcapture_whole "$(share "$mid" "$mine;_start;__libc_start_main;__libc_start_call_main;main;chain;stage_one;stage_two;stage_three;hot_leaf")" 95 \
    "percent of nofp's samples whole"
at_least midcapture_walked "$(stat_of "$ERR" "walked in the kernel")" 1 "stacks walked in the kernel"
at_least midcapture_copied "$(printf '%s\n' "$ERR" | sed -n 's/.*process not loaded yet \([0-9]*\).*/\1/p')" 1 \
    "samples of processes not loaded yet (copy path)"
stop_workloads

# --- exec: the same pid becomes another program; the old tables must not walk the new one ---
start_workload "$W/deep" spin 2 "$W/nofp" chain 30
run_capture "$STK" profile --no-inline -U -v -p "$WPID" -f 4
at_least exec_before_whole "$(share "$(printf '%s\n' "$OUT" | grep '^deep;')" "$deep")" 95 "percent of deep's samples whole"
at_least exec_after_whole "$(share "$(printf '%s\n' "$OUT" | grep '^nofp;')" "main;chain;stage_one;stage_two;stage_three;hot_leaf")" 95 \
    "percent of samples after the exec whole"
# Old tables walking the new program would leave [unknown] frames in many samples; a
# sample taken in the instant of the exec, before stk has read the new mappings, may
# keep one on a busy host: at most 1% of the samples.
unknown_pm=$(printf '%s\n' "$OUT" | awk '/;/ && $NF ~ /^[0-9]+$/ { t += $NF; if (/\[unknown\]/) u += $NF }
    END { print t ? int(u * 1000 / t) : 1000 }')
if [ "$unknown_pm" -le 10 ]; then pass exec_no_unknown
else fail exec_no_unknown "samples with [unknown] frames: $unknown_pm per mille, want <= 10: $(printf '%s\n' "$OUT" | grep '\[unknown\]' | head -3)"; fi
stop_workloads

# --- a library unloaded and loaded again elsewhere, over and over ---
start_workload "$W/remap" "$W/libstkremap.so" 60
run_capture "$STK" profile --no-inline -U -v -F 199 -p "$WPID" -f 4
at_least remap_whole "$(share "$(printf '%s\n' "$OUT" | grep 'lib_known_leaf')" "main;remap_cycle;lib_entry;lib_known_leaf")" 90 \
    "percent of samples in the library with their callers"
reloads=$(printf '%s\n' "$ERR" | sed -n 's/.* \([0-9]*\) reloads.*/\1/p')
at_least remap_reloaded "${reloads:-0}" 2 "reloads of the process's tables"
stop_workloads

# --- exit: the tables follow a process that ends during the capture ---
"$STK" profile -U -v -F 99 -f 3 >/dev/null 2>"$tmp/exit.err" &
sp=$!
sleep 0.5
"$W/nofp" chain 1 >/dev/null
wait "$sp"
exits=$(sed -n 's/.* \([0-9]*\) exits.*/\1/p' "$tmp/exit.err")
at_least exit_seen "${exits:-0}" 1 "process exits the tables followed"

# --- stacks that are wrong or endless to walk: a reason, a short chain, no hang ---
for mode in badsp cfaloop fploop; do
    start_workload "$W/bad_stack" "$mode" 30
    start=$(date +%s)
    run_capture timeout 20 "$STK" profile --no-inline -U -v -p "$WPID" 2
    expect_eq "bad_${mode}_rc" "$RC" 0
    at_least "bad_${mode}_in_time" $((12 - ($(date +%s) - start))) 0 "seconds to spare of 12"
    expect_contains "bad_${mode}_reason" "$OUT" "(user stack ends: "
    # bounded: no chain ran on to the depth limit
    longest=$(printf '%s\n' "$OUT" | awk '/^    [^ (-]/ { n++ } /user stack ends/ { if (n > m) m = n; n = 0 } END { print m + 0 }')
    if [ "$longest" -ge 1 ] && [ "$longest" -le 16 ]; then pass "bad_${mode}_bounded"
    else fail "bad_${mode}_bounded" "chains of up to $longest frames"; fi
    expect_eq "bad_${mode}_not_depth" "$(printf '%s\n' "$OUT" | grep -c 'perf-max-stack-depth reached')" 0
    stop_workloads
done
start_workload "$W/bad_stack" badsp 30
run_capture "$STK" profile --no-inline -U -v -p "$WPID" 2
expect_contains bad_badsp_read_reason "$OUT" "(user stack ends: the stack could not be read there)"
stop_workloads

# --- tables and chain store too small: said, and the copy path keeps the chains whole ---
start_workload "$W/nofp" qsort 60
run_capture "$STK" profile --no-inline -U -v --cfi-rows 1000 -p "$WPID" -f 2
expect_contains rows_full_warned "$ERR" "got no room in the unwind tables"
at_least rows_full_whole "$(share "$OUT" "main;sorter;stage_sort;qsort_r;")" 95 "percent of samples whole by the copy path"
run_capture "$STK" profile --no-inline -U -v --cfi-chains 16 -p "$WPID" -f 2
expect_contains chains_full_warned "$ERR" "found the chain store full"
at_least chains_full_whole "$(share "$OUT" "main;sorter;stage_sort;qsort_r;")" 95 "percent of samples whole"
stop_workloads

# --- kill -9 leaves nothing attached (the exec and exit hooks included) ---
"$STK" profile -U -F 49 30 >/dev/null 2>&1 &
kp=$!
sleep 1
kill9_leaves_nothing "$kp"
