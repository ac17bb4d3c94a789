#!/bin/bash
# needs: root (tracepoint, uprobe and USDT BPF programs)
# stk stackcount against tests/workloads/readloop: N iterations of read(2),
# malloc, three small functions and two USDT probes (one behind a semaphore)
# on known paths, started only once every tracer has attached, so counts must
# match N. Kernel functions: refused with one clear error on a host that has
# no mechanism for them (this development host), counted where one exists.
SUITE=stackcount
. "$(dirname "$0")/../lib.sh"
require_bpftool
W=$BUILD/tests/workloads
tmp=$(mktemp -d)
N=2000
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# folded_sum FILE REGEX: total of the folded lines matching REGEX
folded_sum() { re="$2" awk 'BEGIN { re = ENVIRON["re"] } $0 ~ re { s += $NF } END { print s + 0 }' "$1"; }
# expect_count NAME FILE REGEX WANT: within 10%
expect_count() {
    local got
    got=$(folded_sum "$2" "$3")
    if within 10 "$got" "$4"; then pass "$1"
    else fail "$1" "count $got, want $4 +- 10% for /$3/: $(head -c 400 "$2")"; fi
}

# --- one workload, many tracers: each attaches, then the workload runs its loop once ---
start_workload() { # ITERATIONS [NAPS]: sets WPID, GO
    GO=$tmp/go.$RANDOM
    "$W/readloop" "$1" "$GO" "${2:-0}" >"$tmp/workload.out" 2>&1 &
    pids+=($!)
    WPID=$!
    for _ in $(seq 100); do grep -q '^ready' "$tmp/workload.out" && return; sleep 0.05; done
}
tracers=()
trace() { # NAME STK-ARGS... (with -v, so stderr says when it has attached)
    local name=$1; shift
    "$STK" stackcount -v "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    eval "tpid_$name=$!"
    tracers+=("$name")
}
run_workload() { # waits for every tracer to attach (or die), runs the loop, stops the tracers with SIGINT
    local name p
    for name in "${tracers[@]}"; do
        p=$(eval echo "\$tpid_$name")
        for _ in $(seq 400); do
            grep -q 'attached with' "$tmp/$name.err" && break
            kill -0 "$p" 2>/dev/null || break
            sleep 0.05
        done
    done
    touch "$GO"
    for _ in $(seq 600); do grep -q '^done' "$tmp/workload.out" && break; sleep 0.05; done
    for name in "${tracers[@]}"; do kill -INT "$(eval echo "\$tpid_$name")" 2>/dev/null; done
    for name in "${tracers[@]}"; do wait "$(eval echo "\$tpid_$name")"; echo $? >"$tmp/$name.rc"; done
    tracers=()
}
rc_of() { cat "$tmp/$1.rc"; }

start_workload $N 500
trace tp_read -p "$WPID" -f t:syscalls:sys_enter_read
trace tp_wild -p "$WPID" -f -d 't:syscalls:sys_enter_rea*'
trace tp_user -p "$WPID" -f -U t:syscalls:sys_enter_read
trace tp_kernel -p "$WPID" -f -K t:syscalls:sys_enter_read
# A real tracepoint (raw_tp by default) and the same through perf, forced.
trace raw_tp -p "$WPID" -f t:raw_syscalls:sys_enter
trace raw_tp_classic -p "$WPID" -f --mechanism tracepoint t:raw_syscalls:sys_enter
trace malloc -p "$WPID" -o "$tmp/malloc.txt" -o "$tmp/malloc.folded" c:malloc
trace p_malloc -p "$WPID" p:c:malloc
trace exe_func -p "$WPID" -f readloop:rl_read_once
trace exe_func_offsets -p "$WPID" -s readloop:rl_read_once
trace path_glob -f -d "$W/readloop:rl_step_*"
trace regex -p "$WPID" -f -d -r 'readloop:rl_step_[ab]$'
trace forced_uprobe -p "$WPID" -f --mechanism uprobe 'readloop:rl_step_*'
trace usdt_tick -p "$WPID" -f u:readloop:tick
trace usdt_guarded -f -d "u:$W/readloop:stk_readloop:guarded"
trace per_process -p "$WPID" -P u:readloop:tick
# glibc exports nanosleep as a WEAK alias of __nanosleep; the versioned name works too.
trace weak_nanosleep -p "$WPID" -f c:nanosleep
trace versioned_nanosleep -p "$WPID" -f 'c:nanosleep@@GLIBC_*'
run_workload
guarded=$(sed -n 's/^done [0-9]* guarded \([0-9]*\).*/\1/p' "$tmp/workload.out")

for name in tp_read tp_wild tp_user tp_kernel raw_tp raw_tp_classic malloc p_malloc exe_func exe_func_offsets path_glob regex forced_uprobe usdt_tick \
            usdt_guarded per_process weak_nanosleep versioned_nanosleep; do
    expect_eq "${name}_rc" "$(rc_of $name)" 0
done
# glibc's read sets up no frame: FP unwinding cannot see its caller (rl_read_once), only the one above.
expect_count tracepoint_read_count "$tmp/tp_read.out" '^readloop;.*main;rl_read_path;(rl_read_once;)?read;.*do_syscall_64;' $N
expect_count tracepoint_wildcard_count "$tmp/tp_wild.out" '^readloop;.*rl_read_path;' $N
expect_contains tracepoint_wildcard_plan "$(cat "$tmp/tp_wild.err")" " syscalls:sys_enter_read "
# syscalls:* events have no raw tracepoint of their own: the classic program, and why.
expect_contains tracepoint_syscall_event_mechanism "$(cat "$tmp/tp_read.err")" \
    "attached with tracepoint (passed over: raw_tp: syscalls:sys_enter_read is made from raw_syscalls"
# raw_syscalls:sys_enter fires for every syscall; the reads are those under rl_read_path.
expect_contains raw_tp_mechanism "$(cat "$tmp/raw_tp.err")" "1 tracepoints attached with raw_tp in"
expect_count raw_tp_read_count "$tmp/raw_tp.out" '^readloop;.*main;rl_read_path;(rl_read_once;)?read;.*do_syscall_64;' $N
expect_eq raw_tp_no_tracing_frames "$(grep -cE 'bpf_trace_run|__bpf_trace|__traceiter|bpf_prog_' "$tmp/raw_tp.out")" 0
expect_contains raw_tp_forced_classic "$(cat "$tmp/raw_tp_classic.err")" "1 tracepoints attached with tracepoint in"
expect_count raw_tp_forced_classic_count "$tmp/raw_tp_classic.out" \
    '^readloop;.*main;rl_read_path;(rl_read_once;)?read;.*do_syscall_64;' $N
expect_contains tracepoint_wildcard_plan_readv "$(cat "$tmp/tp_wild.err")" " syscalls:sys_enter_readv"
expect_count user_stacks_only "$tmp/tp_user.out" '^readloop;.*main;rl_read_path;(rl_read_once;)?read [0-9]+$' $N
expect_eq user_stacks_only_no_kernel "$(grep -c 'do_syscall_64' "$tmp/tp_user.out")" 0
expect_count kernel_stacks_only "$tmp/tp_kernel.out" '^readloop;.*do_syscall_64;' $N
expect_eq kernel_stacks_only_no_user "$(grep -c 'rl_read' "$tmp/tp_kernel.out")" 0
# At malloc's entry glibc has not set up a frame: its caller's caller is the first frame below it.
expect_count malloc_count "$tmp/malloc.folded" '^readloop;.*main;rl_alloc_path;(rl_alloc_once;)?(__libc_)?malloc [0-9]+$' $N
expect_contains malloc_text_shape "$(cat "$tmp/malloc.txt")" "    rl_alloc_path"
expect_contains malloc_header "$(cat "$tmp/p_malloc.out")" 'Tracing 1 functions for "p:c:malloc"... Hit Ctrl-C to end.'
expect_contains malloc_p_form "$(cat "$tmp/p_malloc.out")" "    rl_alloc_path"
expect_count exe_function_count "$tmp/exe_func.out" '^readloop;.*main;rl_read_path;rl_read_once [0-9]+$' $N
# (-v, which every tracer here has, adds "(address file)" to each frame)
if grep -Pzq '\n    rl_read_once\+0x0 \(0x[0-9a-f]+ [^)]*/readloop( regs)?\)\n    rl_read_path\+0x[0-9a-f]+ [^\n]*\n    main\+0x' \
    "$tmp/exe_func_offsets.out"
then pass symbol_offsets; else fail symbol_offsets "$(head -c 300 "$tmp/exe_func_offsets.out")"; fi
for f in a b c; do
    expect_count "path_glob_rl_step_$f" "$tmp/path_glob.out" ";main;rl_step_$f [0-9]+$" $N
    expect_count "forced_uprobe_rl_step_$f" "$tmp/forced_uprobe.out" ";main;rl_step_$f [0-9]+$" $N
done
expect_contains path_glob_plan "$(cat "$tmp/path_glob.err")" "matched 3: rl_step_a@0x"
expect_contains forced_uprobe_used "$(cat "$tmp/forced_uprobe.err")" "3 functions attached with uprobe in "
expect_count regex_rl_step_a "$tmp/regex.out" ";main;rl_step_a [0-9]+$" $N
expect_count regex_rl_step_b "$tmp/regex.out" ";main;rl_step_b [0-9]+$" $N
expect_eq regex_not_rl_step_c "$(grep -c 'rl_step_c' "$tmp/regex.out")" 0
expect_count usdt_count "$tmp/usdt_tick.out" '^readloop;.*main [0-9]+$' $N
# The guarded probe fires only while its semaphore is raised: libbpf raised it.
expect_eq usdt_semaphore_raised "$guarded" $N
expect_count usdt_guarded_count "$tmp/usdt_guarded.out" '^readloop;.*main [0-9]+$' $N
expect_contains usdt_plan "$(cat "$tmp/usdt_guarded.err")" "matched 1: stk_readloop:guarded"
expect_contains per_process_task "$(cat "$tmp/per_process.out")" "    -                readloop ($WPID)"
# 500 naps after the loop (the polling before it naps too, under main without rl_nap_path)
expect_count weak_nanosleep_count "$tmp/weak_nanosleep.out" '^readloop;.*main;rl_nap_path;(rl_nap_once;)?(__)?nanosleep [0-9]+$' 500
expect_count versioned_nanosleep_count "$tmp/versioned_nanosleep.out" '^readloop;.*main;rl_nap_path;(rl_nap_once;)?(__)?nanosleep [0-9]+$' 500

# --- kernel functions: counted where the kernel has a mechanism, else one clear refusal ---
kf_mech=$("$STK" info 2>/dev/null | sed -n 's/^stackcount kernel function: \([a-z_.]*\).*/\1/p')
if [ "$kf_mech" = none ]; then
    run_capture "$STK" stackcount vfs_read
    expect_eq kfunc_refused_rc "$RC" 2
    expect_eq kfunc_refused_one_line "$(printf '%s\n' "$ERR" | wc -l)" 1
    for m in fentry kprobe.multi kprobe kprobe_legacy; do
        expect_contains "kfunc_refused_says_$m" "$ERR" "$m: "
    done
    expect_contains kfunc_refused_message "$ERR" "no mechanism can trace kernel functions on this kernel"
    run_capture "$STK" stackcount --mechanism fentry vfs_read
    expect_eq kfunc_forced_refused_rc "$RC" 2
    expect_contains kfunc_forced_refused "$ERR" "--mechanism fentry: not available here:"
else
    start_workload $N
    trace kfunc -p "$WPID" -f vfs_read
    trace kfunc_wild -p "$WPID" -f -d 'vfs_rea*'
    run_workload
    expect_contains kfunc_mechanism "$(cat "$tmp/kfunc.err")" "attached with $kf_mech"
    expect_count kfunc_vfs_read_count "$tmp/kfunc.out" '^readloop;.*rl_read_path;.*vfs_read [0-9]+$' $N
    expect_count kfunc_wildcard_count "$tmp/kfunc_wild.out" '^readloop;.*rl_read_path;.*vfs_read [0-9]+$' $N
fi
pkill_workloads() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; pids=(); }
pkill_workloads

# --- a reader that cannot keep up (stopped while the loop runs), with stack
# copies (--unwind dwarf: the kernel walk sends nothing to read): each read's
# stack content is new, so most samples find the buffer full; those count by
# frame pointers (readloop keeps them), so every read is still counted, none
# as [Missed], and stderr says how many took that path ---
start_workload 20000
trace stalled --unwind dwarf -p "$WPID" -f t:syscalls:sys_enter_read
for _ in $(seq 400); do grep -q 'attached with' "$tmp/stalled.err" && break; sleep 0.05; done
kill -STOP "$tpid_stalled"
touch "$GO"
for _ in $(seq 600); do grep -q '^done' "$tmp/workload.out" && break; sleep 0.05; done
kill -CONT "$tpid_stalled"
kill -INT "$tpid_stalled"
wait "$tpid_stalled"
expect_eq stalled_reader_rc "$?" 0
tracers=()
stalled=$(folded_sum "$tmp/stalled.out" '^readloop;.*rl_read_path;')
expect_eq stalled_reader_every_read_counted "$stalled" 20000
expect_eq stalled_reader_none_missed "$(grep -c 'Missed' "$tmp/stalled.out")" 0
expect_contains stalled_reader_says_fp "$(cat "$tmp/stalled.err")" "counted with frame-pointer stacks"
pkill_workloads

# --- sched_switch of a polling workload; -i with -T prints each interval ---
"$W/readloop" 1 "$tmp/never" >"$tmp/poller.out" 2>&1 &
pids+=($!)
poller=$!
sleep 0.2
run_capture "$STK" stackcount -p "$poller" -f -D 1.5 t:sched:sched_switch
expect_eq sched_switch_rc "$RC" 0
sw=$(printf '%s\n' "$OUT" | awk '/^readloop;.*main;.*clock_nanosleep;.*do_nanosleep;.*__schedule [0-9]+$/ { s += $NF } END { print s + 0 }')
if [ "$sw" -ge 50 ]; then pass sched_switch_naps; else fail sched_switch_naps "$sw switches in do_nanosleep: $(head -c 300 <<<"$OUT")"; fi
run_capture "$STK" stackcount -p "$poller" -i 0.5 -T -D 1.6 t:sched:sched_switch
expect_eq interval_rc "$RC" 0
expect_eq interval_one_header "$(grep -c '^Tracing 1 tracepoints for "t:sched:sched_switch"' <<<"$OUT")" 1
stamps=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}' <<<"$OUT")
if [ "$stamps" -ge 3 ]; then pass interval_timestamps; else fail interval_timestamps "$stamps time lines: $OUT"; fi
# -c: every event of a workload pinned to CPU 0 is on CPU 0
if [ "$(nproc)" -ge 2 ]; then
    taskset -c 0 "$W/readloop" 1 "$tmp/never" >/dev/null 2>&1 &
    pids+=($!)
    pinned=$!
    sleep 0.2
    run_capture "$STK" stackcount -p "$pinned" -c 1 -f -D 1 t:sched:sched_switch
    expect_eq cpu_filter_other_cpu "$(printf '%s\n' "$OUT" | grep -c 'do_nanosleep')" 0
    run_capture "$STK" stackcount -p "$pinned" -c 0 -f -D 1 t:sched:sched_switch
    expect_contains cpu_filter_same_cpu "$OUT" "do_nanosleep"
else
    skip cpu_filter "one CPU: no other CPU to leave out"
fi

# --- SIGTERM prints and exits 0; kill -9 leaves nothing loaded or attached ---
"$STK" stackcount -p "$poller" -f t:sched:sched_switch >"$tmp/term.out" 2>&1 & sp=$!
sleep 1.2
kill -TERM $sp; wait $sp
expect_eq sigterm_rc "$?" 0
expect_contains sigterm_prints "$(cat "$tmp/term.out")" "do_nanosleep"
"$STK" stackcount -p "$poller" 'readloop:nap_*' >/dev/null 2>&1 & kp=$!
sleep 1
kill9_leaves_nothing "$kp"
pkill_workloads

# --- bad input: one line, exit 2, nothing left behind ---
bad() { # NAME NEEDLE ARGS...
    local name=$1 needle=$2; shift 2
    run_capture "$STK" stackcount "$@"
    if [ "$RC" -eq 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && [ -z "$OUT" ]; then
        expect_contains "bad_$name" "$ERR" "$needle"
    else
        fail "bad_$name" "rc=$RC out='$OUT' err='$ERR'"
    fi
}
bad unknown_function "no kernel function matches 'no_such_function_stk'" no_such_function_stk
bad unknown_tracepoint "unknown tracepoint 'sched:no_such_event'" t:sched:no_such_event
bad raw_tp_syscall_event "--mechanism raw_tp: not available here: syscalls:sys_enter_read is made from raw_syscalls" \
    --mechanism raw_tp t:syscalls:sys_enter_read
bad tracepoint_mechanism "tracepoints use raw_tp or tracepoint" --mechanism fentry t:sched:sched_switch
bad library_not_found "library 'nosuchlibstk' not found" nosuchlibstk:foo
bad library_not_in_process "library 'nosuchlibstk' not found in the mappings of process $$" -p $$ nosuchlibstk:foo
bad function_not_found "no function matches 'no_such_fn' in $W/readloop" "$W/readloop:no_such_fn"
bad usdt_not_found "USDT probe 'no_such_probe' not found in $W/readloop" "u:$W/readloop:no_such_probe"
bad bad_regex "bad regular expression 'rl_step_[': " -r "$W/readloop:rl_step_["
bad bad_pattern "pattern 't:sched': expected t:CATEGORY:EVENT" t:sched
bad no_pattern "missing PATTERN" -D 1
bad two_patterns "unexpected argument 'b'" a b
bad bad_pid "-p" -p 999999999 t:sched:sched_switch
bad bad_option "unknown option '--bogus'" --bogus vfs_read
bad bad_mechanism "--mechanism kprobe: user functions use uprobe.multi or uprobe" --mechanism kprobe c:malloc
bad bad_kfunc_mechanism "--mechanism bogus: kernel functions use" --mechanism bogus vfs_read
bad too_many "matches 3 user functions, more than the limit of 2 (raise it with --max-probes N)" \
    --max-probes 2 "$W/readloop:rl_step_*"
bad bad_duration "-D 0: expected a positive number of seconds" -D 0 t:sched:sched_switch
bad bad_cpu "-c 4095: this machine has CPUs" -c 4095 t:sched:sched_switch
# Nothing of stackcount stays loaded or registered after all of the above.
expect_eq no_programs_left "$(bpftool prog show 2>/dev/null | grep -c 'name stk_sc_')" 0
uprobes=$(unshare -m sh -c 'mount -t tracefs t /sys/kernel/tracing 2>/dev/null; cat /sys/kernel/tracing/uprobe_events 2>/dev/null' | grep -c .)
expect_eq no_uprobe_events_left "$uprobes" 0
