#!/bin/bash
# needs: root (sched_switch BPF programs: tp_btf, raw_tp, tracepoint)
# stk offcputime against tests/workloads/offcpu: threads that sleep, block on
# a pipe, spin, stay blocked, and fsync, each under a known thread name.
SUITE=offcputime
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
tmp=$(mktemp -d)
workloads_begin


# folded_sum FILE COMM [REGEX]: total of the lines of thread COMM (matching REGEX)
# (strings reach awk through ENVIRON: -v would process their backslashes, differently per awk)
folded_sum() {
    comm="$2" re="${3:-.}" awk '
        BEGIN { comm = ENVIRON["comm"]; re = ENVIRON["re"] }
        index($0, comm ";") == 1 && $0 ~ re { s += $NF } END { print s + 0 }' "$1"
}

# --- one capture across the sleeper's 20 x 50 ms; -m/-M, -u, -k and --state S,D run alongside.
# The workload's clock starts once all six have attached (six stks starting at once on a
# busy host take seconds); they run 4 s from then, so stuck's 1.5 s delay leaves 2.5 s ---
start_workload "$W/offcpu" 1500 7 20 - "$tmp/all.go"
naps_out=$WOUT
spin_tid=$(thread_by_comm "$WPID" spinner)
spin_cpu0=$(cpu_ticks "$WPID" "$spin_tid") t0=$(date +%s%N)
"$STK" offcputime -p "$WPID" -o "$tmp/all.folded" -o "$tmp/all.txt" >"$tmp/all.out" 2>"$tmp/all.err" & m0=$!
"$STK" offcputime -p "$WPID" -f -m 40000 -M 60000 >"$tmp/range.out" 2>&1 & m1=$!
"$STK" offcputime -v -p "$WPID" -f -M 20000 >"$tmp/short.out" 2>"$tmp/short.err" & m2=$!
"$STK" offcputime -p "$WPID" -f --state S,D >"$tmp/sd.out" 2>&1 & m3=$!
"$STK" offcputime -u -f >"$tmp/user.out" 2>&1 & m4=$!
"$STK" offcputime -k -f >"$tmp/kern.out" 2>&1 & m5=$!
wait_attached $m0 $m1 $m2 $m3 $m4 $m5
touch "$tmp/all.go"
sleep 4
kill -INT $m0 $m1 $m2 $m3 $m4 $m5
wait $m0; rc0=$?
spin_cpu1=$(cpu_ticks "$WPID" "$spin_tid") t1=$(date +%s%N)
[ "$rc0" -eq 0 ] || fail "capture_rc_$m0" "rc=$rc0"
for p in $m1 $m2 $m3 $m4 $m5; do wait $p; rc=$?; [ "$rc" -eq 0 ] || fail "capture_rc_$p" "rc=$rc"; done
expect_eq capture_rc "$(wc -c <"$tmp/all.err")" 0
expect_contains text_shape "$(cat "$tmp/all.txt")" "    -                sleeper ($WPID)"

# The naps' time as the sleeper measured each (50 ms, and on a busy host the wait for a CPU
# after it), in us: all of them, and those -m 40000 -M 60000 keep.
naps_us() { awk -v lo="$1" -v hi="$2" '$1 == "nap" && $2 / 1000 >= lo && $2 / 1000 <= hi { s += $2 / 1000 } END { printf "%.0f\n", s }' "$naps_out"; }
expect_eq sleeper_naps_done "$(grep -c '^nap ' "$naps_out")" 20
nap=$(folded_sum "$tmp/all.folded" sleeper 'do_nanosleep')
want=$(naps_us 0 1e12)
if within 10 "$nap" "$want"; then pass sleeper_total_within_10pct
else fail sleeper_total_within_10pct "nanosleep total ${nap} us, want ${want} (the sleeper's own clock) +- 10%"; fi
expect_contains sleeper_stack "$(cat "$tmp/all.folded")" "start_thread;sleeper_thread;sleeper_nap;"
if grep -q '^piperead;.*pipe_reader_thread;.*read;.*vfs_read;.*pipe_read;schedule;__schedule [0-9]*$' "$tmp/all.folded"
then pass pipe_reader_read_path
else fail pipe_reader_read_path "$(grep '^piperead;' "$tmp/all.folded" | head -3)"; fi
# Stacks start at the scheduler: no tracing frames left at the leaf.
expect_eq no_tracing_frames "$(grep -cE 'bpf_prog_|bpf_trace_run|__traceiter_|__bpf_trace_' "$tmp/all.folded")" 0
# The spinner never blocks: its only off-CPU time is preemption, bounded by
# the time it did not run while the capture lasted (its CPU time from /proc,
# so other load on the machine does not matter), plus 300 ms of slack.
spin=$(folded_sum "$tmp/all.folded" spinner)
not_run_us=$(( (t1 - t0) / 1000 - (spin_cpu1 - spin_cpu0) * 1000000 / $(getconf CLK_TCK) ))
[ "$not_run_us" -lt 0 ] && not_run_us=0
if [ "$spin" -le $(( not_run_us + 300000 )) ]; then pass spinner_only_preempted_time
else fail spinner_only_preempted_time "spinner off-CPU ${spin} us, but it was off CPU at most ${not_run_us} us (+300 ms)"; fi
expect_eq spinner_never_blocks "$(grep '^spinner;' "$tmp/all.folded" | grep -vc 'irqentry_exit_to_user_mode')" 0
expect_eq spinner_zero_in_state_SD "$(folded_sum "$tmp/sd.out" spinner)" 0
expect_contains state_SD_keeps_sleeper "$(cat "$tmp/sd.out")" "sleeper;"
# stuck blocks 1.5 s after the go and never returns: reported at the end with
# the time so far, 2.5 s of the 4 s after the go (more when the capture ends late).
stuck=$(folded_sum "$tmp/all.folded" stuck 'stuck_thread;.*\[still off-CPU\] [0-9]+$')
if [ "$stuck" -gt 2000000 ] && [ "$stuck" -le 4200000 ]; then pass still_off_cpu_reported
else fail still_off_cpu_reported "stuck total ${stuck} us, want 2.5 to 4 s: $(grep '^stuck;' "$tmp/all.folded")"; fi
expect_contains still_off_cpu_text "$(cat "$tmp/all.txt")" "    [still off-CPU]"
# -m 40000 -M 60000 keeps the 50 ms naps only; -M 20000 drops them.
expect_contains range_keeps_naps "$(cat "$tmp/range.out")" "sleeper;"
# The pipe reader's waits are 100 ms, except possibly its first one (it starts
# waiting at an arbitrary point of the writer's period): at most that one passes.
pipe_in_range=$(folded_sum "$tmp/range.out" piperead)
if [ "$pipe_in_range" -le 60000 ]; then pass range_drops_pipe
else fail range_drops_pipe "piperead kept ${pipe_in_range} us within -m 40000 -M 60000"; fi
range_nap=$(folded_sum "$tmp/range.out" sleeper 'do_nanosleep')
want=$(naps_us 40000 60000)
if [ "$want" -ge 500000 ] && within 10 "$range_nap" "$want"; then pass range_nap_total
else fail range_nap_total "${range_nap} us, want ${want} (the naps of 40-60 ms by the sleeper's clock, at least 500 ms) +- 10%"; fi
# (a nap can end in a short extra sleep after an early wakeup: allow 1% of the naps' time)
short_nap=$(folded_sum "$tmp/short.out" sleeper 'do_nanosleep')
if [ "$short_nap" -lt 10000 ]; then pass max_drops_naps; else fail max_drops_naps "${short_nap} us of naps left"; fi
expect_contains max_keeps_short "$(cat "$tmp/short.out")" "pipewrite;"
# Its seven threads have seven names (main, sleeper, piperead, ...) and take turns
# blocking: the symbolizer reads the mappings again once per name at most (a new
# comm may be an exec), not each time another thread's stack turns up.
rereads=$(sed -n 's/.*symbolizer: .*mappings re-read \([0-9]*\) times.*/\1/p' "$tmp/short.err")
if [ -n "$rereads" ] && [ "$rereads" -le 7 ]; then pass named_threads_not_exec
else fail named_threads_not_exec "mappings re-read ${rereads:-?} times (want <= 7): $(grep symbolizer "$tmp/short.err")"; fi
# -u: user threads only; -k: kernel threads only (kernel threads have no user frames or mm).
expect_contains user_threads_has_workload "$(cat "$tmp/user.out")" "sleeper;"
# stk leaves its own waits out (each would wake it with a new sample: a loop);
# by pid, since another stk may be tracing on this host too
"$STK" offcputime -u 2 >"$tmp/self.out" 2>&1 &
self=$!
wait "$self"
expect_eq self_not_counted "$(grep -c -- "- *stk ($self)" "$tmp/self.out")" 0
expect_eq user_threads_no_kthreads "$(grep -cE '^(kworker|ksoftirqd|rcu_|migration|kcompactd|jbd2)' "$tmp/user.out")" 0
expect_eq kernel_threads_no_workload "$(grep -cE '^(sleeper|piperead|spinner|stk);' "$tmp/kern.out")" 0
if grep -qE '^(kworker|ksoftirqd|rcu_|migration|jbd2|kcompactd)' "$tmp/kern.out"; then pass kernel_threads_has_kthreads
else fail kernel_threads_has_kthreads "$(head -3 "$tmp/kern.out")"; fi
stop_workloads

# --- every mechanism this host has, BTF hidden, and --state D, concurrently on one workload ---
start_workload "$W/offcpu" 0 30 1000 "$tmp"
for m in tp_btf raw_tp tracepoint; do
    "$STK" offcputime --mechanism $m -v -f -p "$WPID" 2 >"$tmp/mech.$m" 2>"$tmp/mech.$m.err" &
done
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$STK' offcputime -v -f -p $WPID 2" \
    >"$tmp/mech.nobtf" 2>"$tmp/mech.nobtf.err" &
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$STK' offcputime -v -f --state D -p $WPID 2" \
    >"$tmp/mech.nobtf_state" 2>"$tmp/mech.nobtf_state.err" &
"$STK" offcputime -f --state D -p "$WPID" 2 >"$tmp/stateD" 2>&1 &
wait_jobs() { for j in $(jobs -p); do case " ${pids[*]} " in *" $j "*) ;; *) wait "$j";; esac; done; }
wait_jobs
for m in tp_btf raw_tp tracepoint; do
    expect_contains "mechanism_${m}_chosen" "$(cat "$tmp/mech.$m.err")" "offcputime: mechanism $m"
    if grep -q '^sleeper;.*sleeper_thread;.*do_nanosleep;schedule;__schedule [0-9]*$' "$tmp/mech.$m" &&
       grep -q '^piperead;.*vfs_read;.*pipe_read;schedule;__schedule [0-9]*$' "$tmp/mech.$m"
    then pass "mechanism_${m}_stacks"; else fail "mechanism_${m}_stacks" "$(head -c 400 "$tmp/mech.$m")"; fi
done
expect_contains nobtf_raw_tp_chosen "$(cat "$tmp/mech.nobtf.err")" "offcputime: mechanism raw_tp"
expect_contains nobtf_raw_tp_stacks "$(cat "$tmp/mech.nobtf")" "sleeper;start_thread;sleeper_thread;"
# without BTF raw_tp cannot read task state: --state falls back to the tracepoint record
expect_contains nobtf_state_tracepoint "$(cat "$tmp/mech.nobtf_state.err")" "offcputime: mechanism tracepoint"
for f in stateD mech.nobtf_state; do
    # (glibc's fdatasync keeps no frame pointer, so fsync_loop's own frame is skipped)
    if grep -qE '^fsyncer;.*fsync_thread;.*fdatasync;.*(io_schedule|jbd2)' "$tmp/$f"; then pass "state_D_keeps_fsync_$f"
    else fail "state_D_keeps_fsync_$f" "$(head -c 400 "$tmp/$f")"; fi
    expect_eq "state_D_drops_sleeps_$f" "$(grep -cE '^(sleeper|piperead|pipewrite|stuck);' "$tmp/$f")" 0
done

# --- signals print results and exit 0; also when started with SIGINT ignored, as a shell
# without job control starts background commands (`stk ... & kill -INT $!` in a script) ---
for sig in INT TERM ignored; do
    if [ "$sig" = ignored ]; then
        (trap '' INT; exec "$STK" offcputime -p "$WPID" -f) >"$tmp/sig.$sig" 2>&1 & sp=$!
    else
        "$STK" offcputime -p "$WPID" -f >"$tmp/sig.$sig" 2>&1 & sp=$!
    fi
    sleep 1.5
    kill -${sig/ignored/INT} $sp
    for _ in $(seq 100); do kill -0 $sp 2>/dev/null || break; sleep 0.1; done
    kill -0 $sp 2>/dev/null && { fail "sig${sig}_exits" "still running 10 s after SIGINT"; kill -9 $sp; }
    wait $sp
    expect_eq "sig${sig}_rc" "$?" 0
    expect_contains "sig${sig}_prints" "$(cat "$tmp/sig.$sig")" "sleeper;"
done

# --- the kernel walk's kept walks (cfi): a thread blocking where it blocked before reuses its
# walk only while the stack words it read are unchanged. offcpu_alternate naps from two callers
# in turn (left, left, right) at the same pc, sp and frame pointer; only a return address
# differs. Each caller must keep its own naps: 2:1, none counted under the other's stack. ---
start_workload "$W/offcpu_alternate" 30
"$STK" offcputime --unwind cfi -v -f -p "$WPID" 3 >"$tmp/alt.folded" 2>"$tmp/alt.err"
alt_left=$(folded_sum "$tmp/alt.folded" offcpu_alternat ';alt_left;alt_nap;.*do_nanosleep')
alt_right=$(folded_sum "$tmp/alt.folded" offcpu_alternat ';alt_right;alt_nap;.*do_nanosleep')
# the thread sleeps nearly all of the 3 s, two naps from the left for each from the right
if awk -v l="$alt_left" -v r="$alt_right" 'BEGIN { exit !(l + r >= 2000000 && r > 0 && l / r >= 1.7 && l / r <= 2.3) }'
then pass memo_callers_apart
else fail memo_callers_apart "left ${alt_left} us, right ${alt_right} us in 3 s: want 2:1, nearly all of it"; fi
expect_eq memo_no_mixed_stack "$(grep -c 'alt_left;alt_right\|alt_right;alt_left' "$tmp/alt.folded")" 0
alt_stats=$(grep 'user stacks:' "$tmp/alt.err")
at_least memo_reused "$(sed -n 's/.* \([0-9]*\) reused a kept walk.*/\1/p' <<<"$alt_stats")" 10 "$alt_stats"
at_least memo_changed_rewalked "$(sed -n 's/.*; \([0-9]*\) kept walks had changed.*/\1/p' <<<"$alt_stats")" 10 "$alt_stats"

# --- A kept walk that ended on a frame-pointer guess that led nowhere (JIT code without CFI whose
# frame pointer is data) stands in while the guess, made again, still fails. offcpu_jit naps
# 2 ms through a stub in anonymous memory: three rounds in four its "frame record" is data that
# changes every round (the chain ends at the stub), every fourth it leads on into guessed_caller.
# The naps 3:1, each round under its own stack, and the failing rounds reusing a kept walk. ---
start_workload "$W/offcpu_jit" 2000 "$tmp/jit.go"
jit_out=$WOUT
"$STK" offcputime -U -v -f -p "$WPID" >"$tmp/jit.folded" 2>"$tmp/jit.err" & jp=$!
wait_line "$tmp/jit.err" 'tracing .* after start' $jp
touch "$tmp/jit.go"
for _ in $(seq 400); do grep -qs '^nowhere' "$jit_out" && break; sleep 0.05; done
kill -INT $jp; wait $jp
expect_eq jit_guess_rc "$?" 0
jit_nowhere=$(folded_sum "$tmp/jit.folded" offcpu_jit '^offcpu_jit;\[unknown\];jit_nap;')
jit_onward=$(folded_sum "$tmp/jit.folded" offcpu_jit ';guessed_caller;\[unknown\];jit_nap;')
if awk -v n="$jit_nowhere" -v o="$jit_onward" 'BEGIN { exit !(n + o >= 3500000 && o > 0 && n / o >= 2.6 && n / o <= 3.4) }'
then pass jit_guess_rounds_apart
else fail jit_guess_rounds_apart "led nowhere ${jit_nowhere} us, led on ${jit_onward} us: want 3:1 of 4 s ($(cat "$jit_out"))"; fi
jit_stats=$(grep 'user stacks:' "$tmp/jit.err")
at_least jit_guess_reused "$(sed -n 's/.* \([0-9]*\) reused a kept walk.*/\1/p' <<<"$jit_stats")" 900 "$jit_stats"

# --- Kept kernel chains (bpf/kernel_memo.h): a thread that blocks again through the same calls
# reuses the chain it was kept with while every return address is in its slot. Against the fp rung
# beside it, which takes each kernel stack anew (bpf_get_stackid): the same kernel stacks with the
# same time, for two threads passing a byte back and forth on one CPU (every switch a block, now in
# read, now preempted) and offcpu_alternate's naps through two system calls from one call site. ---
start_workload "$W/offcpu_alternate" 30 kernel
kalt=$WPID
taskset -c 0 "$W/offcpu_pingpong" 100000000 >"$tmp/kpp.out" & kpp=$!
"$STK" offcputime -K -v -f -p "$kpp,$kalt" >"$tmp/kc.folded" 2>"$tmp/kc.err" & k1=$!
"$STK" offcputime -K -f --unwind fp -p "$kpp,$kalt" >"$tmp/kf.folded" 2>"$tmp/kf.err" & k2=$!
wait_attached $k1 $k2
sleep 2
kill -INT $k1 $k2
wait $k1; kc_rc=$?
wait $k2
kill $kpp $kalt 2>/dev/null
expect_eq kept_kernel_rc "$kc_rc" 0
kc_stats=$(grep 'kernel stacks at a block:' "$tmp/kc.err")
at_least kept_kernel_reused "$(sed -n 's/.*: \([0-9]*\) reused a kept chain.*/\1/p' <<<"$kc_stats")" 1000 "${kc_stats:-no kept chains line}"
# each kernel stack's share of its process's time by the kept chains against the fp rung's
# (blocks still going at the end aside; shares within each process, as the two captures start
# and stop a moment apart and the processes' long blocks end on either side of that moment;
# the points averaged over the processes): a chain reused where it no longer held would move
# time from one stack of a thread to another
kc_diff=$(awk '
    { line = $0; sub(/ [0-9]+$/, "", line); if (line ~ /\[still off-CPU\]/) next; p = line; sub(/;.*/, "", p) }
    FNR == NR { c[line] += $NF; cp[line] = p; tc[p] += $NF; all_c += $NF; next }
    { f[line] += $NF; fp[line] = p; tf[p] += $NF; all_f += $NF }
    END {
        if (!all_c || !all_f) { print "0 100 " all_c + 0 " " all_f + 0; exit }
        for (k in c) { p = cp[k]; d = c[k] / tc[p] - (p in tf ? f[k] / tf[p] : 0); if (d < 0) d = -d; diff += d
                       if (!(k in f) && c[k] > tc[p] / 100) only++ }
        for (k in f) { p = fp[k]; if (!(k in c)) { diff += f[k] / tf[p]; if (f[k] > tf[p] / 100) only++ } }
        for (p in tc) procs++
        for (p in tf) if (!(p in tc)) procs++
        printf "%.0f %.1f %.0f %.0f\n", only, 100 * diff / procs, all_c, all_f
    }' "$tmp/kc.folded" "$tmp/kf.folded")
read -r kc_only kc_pct kc_tc kc_tf <<<"$kc_diff"
if [ "$kc_only" = 0 ] && awk -v p="$kc_pct" 'BEGIN { exit !(p <= 6) }' && [ "$kc_tc" -gt 1000000 ]; then
    pass kept_kernel_same_stacks
else
    fail kept_kernel_same_stacks "$kc_only stacks of one capture only, shares within a process differ by $kc_pct points (averaged over the processes; kept $kc_tc us, fp $kc_tf us)"
fi
# the two system calls' naps apart: 2:1, none under the other's kernel path
kc_left=$(folded_sum "$tmp/kc.folded" offcpu_alternat '_sys_nanosleep;')
kc_right=$(folded_sum "$tmp/kc.folded" offcpu_alternat '_sys_clock_nanosleep;')
if awk -v l="$kc_left" -v r="$kc_right" 'BEGIN { exit !(l + r >= 1500000 && r > 0 && l / r >= 1.7 && l / r <= 2.3) }'
then pass kept_kernel_calls_apart
else fail kept_kernel_calls_apart "nanosleep ${kc_left} us, clock_nanosleep ${kc_right} us in 2 s: want 2:1"; fi

# --- --sample N: one switch-out in N taken, its block weighted N. napper's 8 threads nap 1,500
# x 1 ms each and say how long they were off CPU (wall time less CPU time): the weighted total must
# come within 10% of that truth (about 1,500 blocks taken: the count's own spread is under 3%).
# Then two threads passing a byte back and forth on one CPU, whose switch-outs alternate there: a
# fixed every-2nd would take only one of them; the random gaps take both alike. ---
start_workload "$W/napper" 1500 1000 "$tmp/nap.go" 8
nap_out=$WOUT
"$STK" offcputime -v -f --sample 8 -p "$WPID" >"$tmp/nap.folded" 2>"$tmp/nap.err" & sp=$!
wait_line "$tmp/nap.err" 'tracing .* after start' $sp
touch "$tmp/nap.go"
for _ in $(seq 600); do grep -qs '^done' "$nap_out" && break; sleep 0.05; done
kill -INT $sp; wait $sp
expect_eq sample_rc "$?" 0
off_us=$(sed -n 's/^offcpu \([0-9]*\)$/\1/p' "$nap_out" | awk '{ printf "%.0f\n", $1 / 1000 }')
nap_sampled=$(folded_sum "$tmp/nap.folded" napper ';napper_nap;')
if within 10 "$nap_sampled" "$off_us"; then pass sample_total_within_10pct
else fail sample_total_within_10pct "got $nap_sampled us, off CPU $off_us us"; fi
"$STK" offcputime --sample 8 -p "$WPID" 0.2 >"$tmp/nap.txt" 2>&1
expect_contains sample_header_says "$(head -1 "$tmp/nap.txt")" "one switch-out in 8 taken at random and weighted 8"
stop_workloads
"$STK" offcputime -v -U -f --sample 2 >"$tmp/pp.folded" 2>"$tmp/pp.err" & sp=$!
wait_line "$tmp/pp.err" 'tracing .* after start' $sp
taskset -c 0 "$W/offcpu_pingpong" 20000 >/dev/null
kill -INT $sp; wait $sp
pp_ponger=$(folded_sum "$tmp/pp.folded" offcpu_pingpong ';ponger;')
pp_pinger=$(folded_sum "$tmp/pp.folded" offcpu_pingpong ';main;')
if awk -v a="$pp_ponger" -v b="$pp_pinger" 'BEGIN { exit !(a > 0 && b > 0 && a / b >= 0.6 && a / b <= 1.67) }'
then pass sample_alternating_threads_alike
else fail sample_alternating_threads_alike "ponger $pp_ponger us, pinger $pp_pinger us: want them alike"; fi

# --- kill -9 leaves nothing attached: the programs this stk held (from its fdinfo) go away.
# (By id, not by name: another stk may be tracing at the same time.)
"$STK" offcputime >/dev/null 2>&1 & kp=$!
sleep 1
kill9_leaves_nothing "$kp"
stop_workloads

# --- bad input: one line, exit 2 ---
bad() { # NAME NEEDLE ARGS...
    local name=$1 needle=$2; shift 2
    run_capture "$STK" offcputime "$@"
    if [ "$RC" -eq 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && [ -z "$OUT" ]; then
        expect_contains "bad_$name" "$ERR" "$needle"
    else
        fail "bad_$name" "rc=$RC out=$OUT err=$ERR"
    fi
}
bad no_such_pid "-p 999999: no such process" -p 999999
bad no_such_tid "-t 999999: no such thread" -t 999999
bad bad_pid_list "-p 1,x: expected PID" -p 1,x
bad unknown_option "unknown option '--bogus'" --bogus
bad user_and_kernel_stacks "-U and -K are mutually exclusive" -U -K
bad user_and_kernel_threads "-u and -k are mutually exclusive" -u -k
bad pid_and_tid "-p and -t are mutually exclusive" -p 1 -t 1
bad min_over_max "-m must not be greater than -M" -m 100 -M 10
bad bad_min "-m abc: expected" -m abc
bad bad_max "-M 0: expected" -M 0
bad bad_state "--state X: expected letters" --state X
bad bad_sample "--sample 0: expected N from 1 to 1000 (one switch-out in N)" --sample 0
bad bad_state_empty "--state : expected letters" --state ""
bad bad_mechanism "--mechanism fentry: expected tp_btf" --mechanism fentry
bad mechanism_unavailable "--mechanism kprobe: not available here" --mechanism kprobe 1
bad bad_duration "duration abc" abc
bad bad_format "--format xml" --format xml
bad bad_storage "--stack-storage-size 0" --stack-storage-size 0
run_capture unshare -p -f --mount-proc "$STK" offcputime -p 1 1
expect_eq child_pidns_rc "$RC" 2
expect_contains child_pidns_msg "$ERR" "need host PIDs"
run_capture setpriv --reuid=65534 --regid=65534 --clear-groups "$STK" offcputime 1
expect_eq unprivileged_rc "$RC" 2
