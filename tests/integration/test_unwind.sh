#!/bin/bash
# needs: root (perf_event BPF programs)
# CFI unwinding, both rungs (--unwind cfi: tables walked in the kernel, the
# default; --unwind dwarf: a stack copy unwound with libdw): whole caller
# chains of code built without frame pointers (tests/workloads/nofp*.c), in
# C, C++, through libc (qsort), static; agreement with perf's DWARF
# unwinding; no stack lost with thousands of distinct stacks; bad input stops
# a chain with a reason, never a crash. Each check's name starts with its rung.
SUITE=unwind
# Inlined frames (DWARF, on hosts with debug files such as libc6-dbg) are left out
# (--no-inline): this suite checks CFI unwinding, name for name with perf script.
. "$(dirname "$0")/../lib.sh"
require_bpftool
W=$BUILD/tests/workloads
tmp=$(mktemp -d)
workloads_begin


# share FOLDED NEEDLE [LEAF]: percent of samples (of those ending in LEAF, when given)
# whose folded stack contains NEEDLE
share() {
    printf '%s\n' "$1" | awk -v needle="$2" -v leaf="${3:-}" '
        { n = $NF; $NF = ""; sub(/ $/, "") }
        leaf != "" && substr($0, length($0) - length(leaf) + 1) != leaf { next }
        { total += n; if (index($0, needle)) hit += n }
        END { printf "%.0f\n", total ? int(hit * 100 / total) : -1 }'
}
# frames_in_order TEXT NAME... : every NAME appears, each on a later line than the one before
frames_in_order() {
    local text=$1 IFS='|'; shift
    printf '%s\n' "$text" | awk -v names="$*" '
        BEGIN { n = split(names, want, "|"); i = 1 }
        i <= n && index($0, want[i]) { i++ }
        END { exit (i > n) ? 0 : 1 }'
}

chain="main;chain;stage_one;stage_two;stage_three;hot_leaf"

# --- frame pointers for contrast: the workload has none ---
start_workload "$W/nofp" chain 60
run_capture "$STK" profile --no-inline -U --unwind fp -p "$WPID" -f 2
fp_share=$(share "$OUT" "stage_one;stage_two")
if [ "$fp_share" -ge 0 ] && [ "$fp_share" -lt 50 ]; then pass fp_loses_callers
else fail fp_loses_callers "--unwind fp found the callers in $fp_share% (the workload must have no frame pointers)"; fi

# -v with dwarf: how each frame was found, why each chain stopped
run_capture "$STK" profile --no-inline -U -v --unwind dwarf -p "$WPID" 2
expect_contains dwarf/verbose_leaf_regs "$OUT" "/nofp regs)"
expect_contains dwarf/verbose_cfi "$OUT" "/nofp cfi)"
expect_contains dwarf/verbose_stop "$OUT" "(user stack ends: outermost frame"
if frames_in_order "$OUT" "hot_leaf+" "stage_three+" "stage_two+" "stage_one+" "chain+" "main+"; then
    pass dwarf/verbose_order; else fail dwarf/verbose_order "frames out of order: $(printf '%s' "$OUT" | head -c 600)"; fi
# -v with cfi: the walk's account of itself and why each chain stopped
run_capture "$STK" profile --no-inline -U -v -p "$WPID" 2
expect_contains cfi/verbose_stop "$OUT" "(user stack ends: outermost frame (return address undefined))"
expect_contains cfi/verbose_walked "$ERR" "walked in the kernel"
expect_contains cfi/verbose_tables "$ERR" "unwind tables: "
if frames_in_order "$OUT" "hot_leaf+" "stage_three+" "stage_two+" "stage_one+" "chain+" "main+"; then
    pass cfi/verbose_order; else fail cfi/verbose_order "frames out of order: $(printf '%s' "$OUT" | head -c 600)"; fi
stop_workloads

# --- differential: perf record --call-graph dwarf on the same workload at the same time ---
need_command perf linux-perf
differential() { # NAME RUNG WORKLOAD MODE [--collapse-recursion]
    local name=$1 rung=$2 workload=$3 mode=$4 extra=${5:-} got
    stop_workloads
    start_workload "$W/$workload" "$mode" 60
    perf record -q -F 199 --call-graph dwarf,65528 -e cpu-clock -p "$WPID" -o "$tmp/perf.data" -- sleep 5 \
        >/dev/null 2>&1 &
    local pp=$!
    "$STK" profile --no-inline -U -F 199 --unwind "$rung" -p "$WPID" -f 5 > "$tmp/stk.folded" 2>/dev/null
    wait "$pp"
    perf script --no-inline -i "$tmp/perf.data" -F comm,ip,sym > "$tmp/perf.txt" 2>/dev/null
    got=$(python3 "$(dirname "$0")/chains_agree.py" "$tmp/stk.folded" "$tmp/perf.txt" $extra)
    # stk=F perf=F: each tool's share of samples whose whole chain the other also saw
    if printf '%s\n' "$got" | awk '{ split($1, a, "="); split($2, b, "=");
                                     exit !(a[2] >= 0.95 && b[2] >= 0.95 && $4 ~ /^samples=[0-9][0-9]+\//) }'; then
        pass "$rung/$name"
    else
        fail "$rung/$name" "chains agree less than 95%: $got"
    fi
}
if command -v perf >/dev/null 2>&1; then
    for rung in cfi dwarf; do
        differential perf_agrees_chain "$rung" nofp chain
        differential perf_agrees_qsort "$rung" nofp qsort --collapse-recursion
    done
    # 49 frames of 700 bytes: only perf's 64 KiB copy reaches the root beside the kernel walk
    differential perf_agrees_deep cfi deep spin
else
    fail perf_agrees "perf is missing and 'apt-get install linux-perf' failed"
fi
stop_workloads

# share_of FOLDED FILTER NEEDLE: percent of the value of lines containing FILTER that contain NEEDLE
share_of() {
    printf '%s\n' "$1" | awk -v filter="$2" -v needle="$3" '
        !index($0, filter) { next }
        { total += $NF; if (index($0, needle)) hit += $NF }
        END { printf "%.0f\n", total ? int(hit * 100 / total) : -1 }'
}

# chains RUNG: the checks every CFI rung must pass, named RUNG/...
chains() {
    local r=$1 u="--unwind $1"
    start_workload "$W/nofp" chain 60
    run_capture "$STK" profile --no-inline -U $u -p "$WPID" -f 3
    expect_eq "$r/chain_rc" "$RC" 0
    at_least "$r/chain_whole" "$(share "$OUT" "$chain")" 95 "percent of samples with $chain"
    at_least "$r/chain_from_root" "$(share "$OUT" "nofp;_start;")" 95 "percent of samples unwound up to _start"
    stop_workloads

    # a comparator called from inside libc
    start_workload "$W/nofp" qsort 60
    run_capture "$STK" profile --no-inline -U $u -p "$WPID" -f 3
    at_least "$r/qsort_through_libc" "$(share "$OUT" "main;sorter;stage_sort;qsort_r;" "cmp_leaf")" 95 \
        "percent of cmp_leaf samples under main;sorter;stage_sort;qsort_r"
    stop_workloads

    start_workload "$W/nofp_cxx" 60
    run_capture "$STK" profile --no-inline -U $u -p "$WPID" -f 3
    at_least "$r/cxx_whole" "$(share "$OUT" "main;unsigned long nofp::outer<unsigned long>(nofp::Engine&, unsigned long);nofp::Engine::middle(unsigned long);nofp::Engine::leaf(unsigned long)")" 95 \
        "percent of samples with the whole C++ chain"
    stop_workloads

    # static binary (the kernel matrix's workload)
    start_workload "$W/nofp_static" chain 60
    run_capture "$STK" profile --no-inline -U $u -p "$WPID" -f 3
    at_least "$r/static_whole" "$(share "$OUT" "$chain")" 95 "percent of samples with $chain"
    stop_workloads

    # no .eh_frame at all: a result and a reason, no crash
    start_workload "$W/nofp_noeh" chain 60
    run_capture "$STK" profile --no-inline -U -v $u -p "$WPID" 2
    expect_eq "$r/noeh_rc" "$RC" 0
    expect_contains "$r/noeh_leaf" "$OUT" "hot_leaf"
    expect_contains "$r/noeh_reason" "$OUT" "(user stack ends: no CFI for the last frame"
    stop_workloads

    # a process that exits during the capture keeps its whole chain (the capture is of the
    # whole host: the workload runs under a name of its own, as another suite may run nofp)
    mine=nofp$$
    [ -e "$tmp/$mine" ] || cp "$W/nofp" "$tmp/$mine"
    ( sleep 0.5; "$tmp/$mine" chain 1.5 >/dev/null ) &
    pids+=($!)
    run_capture "$STK" profile --no-inline -U $u -F 199 -f 3
    at_least "$r/exited_whole" "$(printf '%s\n' "$OUT" | grep "^$mine;" | awk '{ n += $NF } END { print n + 0 }')" 1 \
        "samples of the short-lived nofp"
    at_least "$r/exited_whole_chain" "$(share "$(printf '%s\n' "$OUT" | grep "^$mine;")" "$chain")" 95 \
        "percent of the short-lived process's samples with $chain"
    stop_workloads

    # thousands of distinct stacks, none lost (12 s: 4,096 paths seen often enough even on a busy host)
    "$tmp/manystacks" 60 >/dev/null &
    local mp=$! t0 t1 distinct total want
    pids+=($mp)
    t0=$(cpu_ticks "$mp")
    run_capture "$STK" profile --no-inline -U $u -F 999 -p "$mp" -f 12
    t1=$(cpu_ticks "$mp")
    distinct=$(printf '%s\n' "$OUT" | grep -c '^manystacks;')
    total=$(printf '%s\n' "$OUT" | awk '{ n += $NF } END { print n + 0 }')
    want=$(( (t1 - t0) * 999 / $(getconf CLK_TCK) ))
    at_least "$r/manystacks_distinct" "$distinct" 2000 "distinct stacks"
    expect_eq "$r/manystacks_no_loss_warning" "$(printf '%s\n' "$ERR" | grep -c WARNING)" 0
    # every sample of the workload's CPU time is there (10% for the tick granularity)
    at_least "$r/manystacks_all_samples" "$(( total * 100 / (want > 0 ? want : 1) ))" 90 "percent of CPU time sampled"
    stop_workloads

    # offcputime: a thread in nanosleep, one in pthread_cond_timedwait (libc without frame pointers)
    for w in nofp nofp_static; do
        start_workload "$W/$w" all 60
        run_capture "$STK" offcputime --no-inline $u -p "$WPID" -f 3
        expect_eq "$r/offcpu_${w}_rc" "$RC" 0
        at_least "$r/offcpu_${w}_nanosleep_caller" "$(share_of "$OUT" "hrtimer_nanosleep" "start_thread;sleeper;sleep_stage;")" 95 \
            "percent of nanosleep time under start_thread;sleeper;sleep_stage"
        at_least "$r/offcpu_${w}_condwait_caller" "$(share_of "$OUT" "futex_wait" "start_thread;cond_waiter;wait_stage;")" 95 \
            "percent of futex wait time under start_thread;cond_waiter;wait_stage"
        expect_contains "$r/offcpu_${w}_condwait_libc" "$OUT" "pthread_cond_timedwait;__futex_abstimed_wait_common;"
        stop_workloads
    done

    # stackcount: a uprobe at function entry keeps its caller (and the whole chain)
    start_workload "$W/nofp" chain 60
    run_capture "$STK" stackcount --no-inline -U $u -f -p "$WPID" -D 2 "$W/nofp:stage_two"
    expect_eq "$r/uprobe_rc" "$RC" 0
    at_least "$r/uprobe_entry_whole" "$(share "$OUT" "main;chain;stage_one;stage_two")" 95 \
        "percent of stage_two entries under main;chain;stage_one"
    expect_eq "$r/uprobe_no_missed" "$(printf '%s\n' "$OUT" | grep -c 'Missed')" 0
    run_capture "$STK" stackcount --no-inline $u -f -p "$WPID" -D 2 t:sched:sched_switch
    at_least "$r/tracepoint_whole" "$(share "$OUT" "main;chain;stage_one;stage_two;stage_three;hot_leaf;")" 95 \
        "percent of sched_switch events with the user chain"
    expect_eq "$r/tracepoint_no_missed" "$(printf '%s\n' "$OUT" | grep -c 'Missed')" 0
    stop_workloads
}
if gcc -O2 -fomit-frame-pointer -o "$tmp/manystacks" "$(dirname "$0")/../../bench/manystacks.c"; then
    chains cfi
    chains dwarf
else
    fail manystacks "cannot build bench/manystacks.c"
fi
start_workload "$W/nofp" all 60
run_capture "$STK" offcputime --no-inline --unwind fp -p "$WPID" -f 2
fp_share=$(share_of "$OUT" "hrtimer_nanosleep" "sleeper;sleep_stage;")
if [ "$fp_share" -lt 50 ]; then pass offcpu_fp_loses_caller
else fail offcpu_fp_loses_caller "--unwind fp kept sleep_stage in $fp_share% (libc must have no frame pointers)"; fi
stop_workloads

# --- stk info says which unwinding this kernel gets ---
run_capture "$STK" info
if bpftool feature probe kernel 2>/dev/null | grep -q '^	- bpf_loop$'; then
    expect_contains info_unwind_cfi "$OUT" "unwind: cfi, the default"
    expect_contains info_user_stacks "$OUT" "user stacks: cfi (order: cfi > dwarf > fp)"
else
    expect_contains info_unwind_dwarf "$OUT" "unwind: dwarf, the default (cfi needs bpf_loop"
fi
run_capture unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$STK' info"
expect_contains info_unwind_fp_without_btf "$OUT" "unwind: fp, the default (cfi needs kernel BTF"

# --- bad options ---
run_capture "$STK" profile --unwind lbr 1
expect_eq bad_unwind_rc "$RC" 2
expect_contains bad_unwind_msg "$ERR" "--unwind lbr: expected cfi, dwarf or fp"
run_capture "$STK" profile --stack-bytes 1000 1
expect_eq bad_stack_bytes_rc "$RC" 2
expect_contains bad_stack_bytes_msg "$ERR" "--stack-bytes 1000"
# dwarf asked for explicitly where it cannot run (no BTF anywhere): exit 2 with the reason
run_capture unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$STK' profile --unwind dwarf 1"
expect_eq nobtf_dwarf_rc "$RC" 2
expect_contains nobtf_dwarf_msg "$ERR" "--unwind dwarf needs kernel BTF"
