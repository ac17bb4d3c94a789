# Guest case: stackcount on /readloop_static (a known number of read(2),
# malloc and USDT calls on known paths), with the mechanism stk chooses for
# kernel functions and with each one forced; tracepoints (raw_tp and classic),
# uprobe and USDT too.
# One workload run serves many tracers at once (TCG is slow): start the
# workload (it waits for a go file), start every stk, wait for each one's
# "attached with" line (or its exit), let the workload loop once, stop them
# all with SIGINT, print one block per tracer.
SC_N=1000
sc_wait() { # FILE REGEX [PID]: until FILE has a line matching REGEX (or PID is gone), at most 20 s
    sc_w=0
    while ! grep -q "$2" "$1" 2>/dev/null && [ $sc_w -lt 400 ]; do
        [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && return
        sleep 0.05
        sc_w=$((sc_w + 1))
    done
}
sc_begin() { # starts the workload
    rm -f /tmp/sc_go /tmp/sc_rl.out /tmp/sc_[0-9]*
    /readloop_static "$SC_N" /tmp/sc_go > /tmp/sc_rl.out &
    sc_rl=$!
    sc_wait /tmp/sc_rl.out '^ready'
    sc_n=0
    sc_cases=""
}
sc_trace() { # CASE STK-ARGS... (@OUT@ in an argument: this tracer's file prefix)
    sc_n=$((sc_n + 1))
    sc_case=$1
    shift
    for sc_a in "$@"; do
        shift
        set -- "$@" "$(echo "$sc_a" | sed "s|@OUT@|/tmp/sc_$sc_n|")"
    done
    /stk stackcount -v -p "$sc_rl" "$@" > "/tmp/sc_$sc_n.out" 2>&1 &
    eval "sc_pid_$sc_n=$!"
    sc_cases="$sc_cases $sc_case"
}
sc_end() { # runs the loop once, stops every tracer, prints the blocks
    sc_i=1
    while [ $sc_i -le $sc_n ]; do
        eval "sc_p=\$sc_pid_$sc_i"
        sc_wait "/tmp/sc_$sc_i.out" 'attached with' "$sc_p"
        sc_i=$((sc_i + 1))
    done
    touch /tmp/sc_go
    sc_wait /tmp/sc_rl.out '^done'
    sc_i=1
    sc_all=""
    while [ $sc_i -le $sc_n ]; do eval "sc_all=\"\$sc_all \$sc_pid_$sc_i\""; sc_i=$((sc_i + 1)); done
    stk_settle $sc_all
    sc_i=1
    while [ $sc_i -le $sc_n ]; do eval "kill -INT \$sc_pid_$sc_i 2>/dev/null"; sc_i=$((sc_i + 1)); done
    sc_i=1
    for sc_c in $sc_cases; do
        eval "wait \$sc_pid_$sc_i"
        sc_rc=$?
        echo "@@CASE $sc_c"
        cat "/tmp/sc_$sc_i.out"
        cat /tmp/sc_$sc_i.file.* 2>/dev/null
        echo "@@RC $sc_rc"
        sc_i=$((sc_i + 1))
    done
    kill "$sc_rl"
}
sc_begin
# Both shapes from one capture: folded (checked) and bcc's text (shown in the README).
# vfs_read, the syscall tracepoint and USDT run the default unwinding (cfi or dwarf); the
# mechanism cases take fp, which verifies in a fraction of the time under TCG
# (40-unwind.sh covers the default at a uprobe).
sc_trace stackcount_vfs_read -o @OUT@.file.folded -o @OUT@.file.txt vfs_read
sc_trace stackcount_wildcard --unwind fp -d -f 'vfs_rea*'
sc_trace stackcount_regex --unwind fp -d -r -f 'vfs_read$'
# Many functions: kprobe.multi where the kernel has it (one link), fentry per function otherwise.
sc_trace stackcount_many --unwind fp -f 'vfs_*'
sc_end
sc_begin
for m in fentry kprobe.multi kprobe kprobe_legacy; do
    sc_trace "stackcount_$m" --unwind fp --mechanism "$m" -f vfs_read
done
sc_trace stackcount_tracepoint -f t:syscalls:sys_enter_read
# A real tracepoint: raw_tp, and the same through perf, forced.
sc_trace stackcount_raw_tp --unwind fp -f t:raw_syscalls:sys_enter
sc_trace stackcount_raw_tp_classic --unwind fp --mechanism tracepoint -f t:raw_syscalls:sys_enter
sc_trace stackcount_uprobe --unwind fp -f c:malloc
sc_trace stackcount_usdt -f u:readloop_static:guarded
sc_end
echo "@@CASE stackcount_unknown"
/stk stackcount --mechanism kprobe_legacy nosuch_function_xyz 2>&1
echo "@@RC $?"
# kill -9 while legacy kprobes are attached: stk's guard removes them.
/stk stackcount -v --mechanism kprobe_legacy vfs_read > /tmp/sc_kill9.out 2>&1 &
sc_pid=$!
sc_wait /tmp/sc_kill9.out 'attached with' "$sc_pid"
echo "@@CASE stackcount_kill9"
grep -c 'attached with' /tmp/sc_kill9.out
kill -9 "$sc_pid"
cat /tmp/sc_kill9.out
wait "$sc_pid" 2>/dev/null
sleep 1
echo "@@RC 0"
# Nothing may stay in kprobe_events / uprobe_events after all of the above.
mkdir -p /tmp/sc_tracefs
mount -t tracefs tracefs /tmp/sc_tracefs 2>/dev/null
echo "@@CASE stackcount_leftovers"
cat /tmp/sc_tracefs/kprobe_events /tmp/sc_tracefs/uprobe_events 2>/dev/null
echo "@@RC $?"
umount /tmp/sc_tracefs 2>/dev/null
