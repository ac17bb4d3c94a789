#!/bin/bash
# needs: root (BPF, /proc/PID/syscall and the memory of other processes, ptrace)
# stk pmp against tests/workloads/pmp_threads (no frame pointers): threads
# blocked since before stk starts in a pipe read, a condition wait,
# nanosleep, epoll_wait, accept and a contended mutex, one spinning, main in
# pause. Every chain complete, the running one included, by every mechanism
# this kernel has; the same functions as gdb; processes that exit or make
# threads meanwhile, a zombie, a kernel thread, bad input.
SUITE=pmp
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
workloads_begin

# --- bad input: one line, exit 2 ---
bad() { expect_bad_input "$1" "$2" "$STK" pmp "${@:3}"; } # NAME NEEDLE ARGS...
bad pid_missing "-p 999999999: no such process" -p 999999999
bad pid_text "-p abc: expected PID" -p abc
bad tid_missing "-t 999999999: no such thread" -t 999999999
bad pid_and_tid "mutually exclusive" -p 1 -t 1
bad mechanism "--mechanism magic: expected task_iter_copy, proc or ptrace" --mechanism magic
bad iterations "-n 0: expected" -n 0
bad interval "-i soon: expected a number of seconds" -i soon
bad stack_bytes "at most 24576" --stack-bytes 32768
bad format "--format nope: expected" --format nope
bad argument "unexpected argument 'extra'" extra

# --- the known threads ---
start_workload "$W/pmp_threads" blocked 300
P=$WPID
tid_of() { thread_by_comm "$P" "$1"; }
# What each thread's user chain must be, leaf first after its libc call, to the thread root.
declare -A CHAIN=(
    [piperead]='read,read_stage,pipe_reader,start_thread,__clone3'
    [condwait]='pthread_cond_wait,cond_stage,cond_sleeper,start_thread,__clone3'
    [napping]='__nanosleep,nap_stage,napper,start_thread,__clone3'
    [epollwait]='epoll_wait,epoll_stage,epoller,start_thread,__clone3'
    [accepting]='accept,accept_stage,acceptor,start_thread,__clone3'
    [mutexwait]='__pthread_mutex_lock,lock_stage,locker,start_thread,__clone3'
    [spinning]='spin_leaf,spin_stage,spinner,start_thread,__clone3'
    [pmp_threads]='pause,main_wait,main,__libc_start_call_main,__libc_start_main,_start'
)
# The kernel function each blocked thread waits under (kernel frames come first in a line).
declare -A KWAIT=(
    [piperead]='pipe_read' [condwait]='futex_wait' [napping]='nanosleep' [epollwait]='do_epoll_wait'
    [accepting]='accept' [mutexwait]='futex_wait' [pmp_threads]='sys_pause'
)

# check_chains NAME OUTPUT(-U lines): every thread's chain, exactly once each, and 8 threads in all.
check_chains() {
    local name=$1 out=$2 comm missing=""
    for comm in "${!CHAIN[@]}"; do
        printf '%s\n' "$out" | grep -Eq "^ *1 ([^ ]*,)?${CHAIN[$comm]}\$" || missing="$missing $comm"
    done
    if [ -z "$missing" ]; then pass "${name}_chains"; else
        fail "${name}_chains" "no complete chain for$missing in: $(printf '%s' "$out" | head -c 1200)"; fi
    expect_eq "${name}_threads" "$(printf '%s\n' "$out" | awk '{ n += $1 } END { print n + 0 }')" 8
}

# One run per mechanism of the thread snapshot ladder; one the kernel lacks is a skip, not a pass.
# ptrace goes last: it interrupts each thread's wait (the threads restart them).
check_mechanism() { # MECH
    local mech=$1 spin roots
    run_capture "$STK" pmp -U -v --mechanism "$mech" -p "$P"
    if [ "$RC" -ne 0 ] && [ "$mech" = task_iter_copy ] && ! kernel_at_least 5 18; then
        skip "$mech" "not on this kernel ($(uname -r)): $ERR"
        return
    fi
    expect_eq "${mech}_rc" "$RC" 0
    expect_contains "${mech}_said" "$ERR" "pmp: mechanism $mech"
    check_chains "$mech" "$OUT"
    roots=$(printf '%s\n' "$ERR" | grep -c '^pmp: [0-9]*/[0-9]* .*outermost frame')
    expect_eq "${mech}_roots" "$roots" 8
    spin=$(printf '%s\n' "$ERR" | grep "^pmp: $P/$(tid_of spinning) ")
    case $mech in
        # a thread on a CPU is sampled as it runs (or copied when it was preempted)
        task_iter_copy) expect_contains "${mech}_running" "$spin" "spinning RU" ;;
        proc) expect_contains "${mech}_running" "$spin" ": perf," ;;
        ptrace) expect_contains "${mech}_stops_said" "$ERR" "stops each thread" ;;
    esac
}
check_mechanism task_iter_copy
check_mechanism proc

# A runnable thread that gets no CPU for most of a second (a real-time spinner beside it on
# its one CPU; the kernel leaves others 5% of each second): still sampled as it runs, proc's
# rounds go on while it has not run. Without real-time throttling the spinner would hold the
# CPU for good: a skip.
if [ "$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null)" = -1 ]; then
    skip starved "real-time throttling is off (kernel.sched_rt_runtime_us = -1)"
else
    taskset -c 0 "$W/burn_pie" 20 >/dev/null 2>&1 &
    burn=$!
    pids+=("$burn")
    sleep 0.3
    # the spinner ends itself: killed or orphaned, it could not be left holding the CPU
    chrt -f 10 taskset -c 0 bash -c 'while [ "$SECONDS" -lt 6 ]; do :; done' &
    pids+=($!)
    sleep 0.3
    # three snapshots: one may fall into the thread's 50 ms by chance, three hardly
    for i in 1 2 3; do
        run_capture "$STK" pmp -U -v --mechanism proc -p "$burn"
        expect_eq "starved_${i}_rc" "$RC" 0
        expect_contains "starved_${i}_chain" "$OUT" "1 known_leaf,known_mid,main,"
        expect_contains "starved_${i}_sampled" "$ERR" "1 on a CPU sampled as they ran"
    done
    wait "${pids[-1]}" 2>/dev/null
    kill -9 "$burn" 2>/dev/null
fi

# The default: the first mechanism stk info offers, kernel frames above the user ones.
info_mech=$("$STK" info 2>/dev/null | sed -n 's/^pmp thread snapshot: \([a-z_]*\) .*/\1/p')
run_capture "$STK" pmp -v -p "$P"
expect_eq default_rc "$RC" 0
expect_contains default_mechanism "$ERR" "pmp: mechanism $info_mech"
for comm in "${!KWAIT[@]}"; do
    if printf '%s\n' "$OUT" | grep -Eq "^ *1 [^ ]*${KWAIT[$comm]}[^ ]*,${CHAIN[$comm]}\$"; then
        pass "default_kernel_$comm"
    else
        fail "default_kernel_$comm" "no line with ${KWAIT[$comm]} above ${CHAIN[$comm]}: $(printf '%s' "$OUT" | head -c 900)"
    fi
done

# -S: a leading frame with state and wait channel; the blocked ones SLEEP, the spinner RUN or RUNQ.
run_capture "$STK" pmp -U -S -p "$P"
expect_eq state_rc "$RC" 0
expect_eq state_sleeping "$(printf '%s\n' "$OUT" | grep -c '^ *1 \[SLEEP [a-z_]*\],')" 7
if printf '%s\n' "$OUT" | grep -Eq '^ *1 \[RUNQ?( [a-z_]*)?\],spin_leaf,spin_stage,spinner,'; then pass state_running
else fail state_running "$(printf '%s' "$OUT" | grep spin)"; fi

# Formats: folded (comm first, root first), and -o in every format.
run_capture "$STK" pmp -U -f -p "$P"
expect_contains folded "$OUT" "piperead;__clone3;start_thread;pipe_reader;read_stage;read"
"$STK" pmp -p "$P" -o "$tmp/p.svg" -o "$tmp/p.pb.gz" -o "$tmp/p.txt" -o "$tmp/p.folded" 2>/dev/null
for f in p.svg p.pb.gz p.txt p.folded; do
    [ -s "$tmp/$f" ] && pass "output_$f" || fail "output_$f" "empty or missing"
done
expect_contains output_txt "$(cat "$tmp/p.txt" 2>/dev/null)" "    read_stage"

# The same functions as gdb (pt-pmp's source), thread by thread.
if need_command gdb gdb; then
    python3 "$here/pmp_vs_gdb.py" "$STK" "$P" "$(ls /proc/"$P"/task | paste -sd,)" "$(tid_of spinning)"
else
    fail gdb_installed "apt could not install gdb"
fi
check_mechanism ptrace
stop_workloads

# Threads in the same stack (and state) merge; -n snapshots add up.
start_workload "$W/pmp_threads" idle 50 60
run_capture "$STK" pmp -U -S -n 3 -i 0.1 -p "$WPID"
expect_eq merged_rc "$RC" 0
# (with libc's debug file, read's frame holds __libc_read inlined)
if printf '%s\n' "$OUT" | grep -Eq '^150 \[SLEEP [a-z_]*pipe_read\],([^ ]*,)?read,idle_stage,idle_thread,start_thread,__clone3$'
then pass merged_idle; else fail merged_idle "$OUT"; fi
stop_workloads

# A process that exits while snapshots are taken: what was taken is printed, rc 0.
start_workload "$W/pmp_threads" idle 200 1
run_capture "$STK" pmp -U -n 200 -i 0.02 -p "$WPID"
expect_eq exits_rc "$RC" 0
expect_contains exits_counted "$OUT" ",idle_stage,idle_thread,start_thread,__clone3"
stop_workloads

# Threads created and ending all the time: no crash, and the chains taken stay whole. A
# thread at its first instruction is in __clone3, whose CFI there still describes the
# creating thread's frame: it shows __clone3 and what that CFI leads to.
start_workload "$W/pmp_threads" churn 60
run_capture "$STK" pmp -U -n 20 -p "$WPID"
expect_eq churn_rc "$RC" 0
expect_contains churn_seen "$OUT" "churn_stage,churner,start_thread,__clone3"
broken=$(printf '%s\n' "$OUT" | grep -v -E ',(__clone3|_start)$|^ *[0-9]+ __clone3(,|$)|\[no user stack: ' | head -3)
expect_eq churn_whole "$broken" ""
stop_workloads

# A zombie: no stack, and the line says why.
start_workload "$W/pmp_threads" zombie 60
Z=$(sed -n 's/^zombie //p' "$tmp"/ready.* | tail -1)
run_capture "$STK" pmp -S -p "$Z"
expect_eq zombie_rc "$RC" 0
expect_eq zombie_line "$OUT" "1 [ZOMBIE],[no user stack: exited (a zombie)]"
stop_workloads

# A kernel thread: kernel frames only (kthreadd waits in its own loop).
run_capture "$STK" pmp -p 2
expect_eq kthread_rc "$RC" 0
if printf '%s\n' "$OUT" | grep -Eq '^1 ([^ ]*,)?kthreadd,ret_from_fork'; then pass kthread_stack
else fail kthread_stack "$OUT"; fi
