# Guest case: stackcount on /readloop_static (a known number of read(2),
# malloc and USDT calls on known paths), with the mechanism stk chooses for
# kernel functions and with each one forced; tracepoint, uprobe and USDT too.
# Each run: start the workload (it waits for a go file), start stk, wait for
# its "attached with" line, let the workload loop once, stop stk with SIGINT.
SC_N=1000
sc_wait() { # FILE REGEX [PID]: until FILE has a line matching REGEX (or PID is gone), at most 20 s
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 400 ]; do
        [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && return
        sleep 0.05
        i=$((i + 1))
    done
}
sc_run() { # CASE STK-ARGS...
    sc_case=$1
    shift
    rm -f /tmp/sc_go /tmp/sc_rl.out /tmp/sc.out /tmp/sc_file.*
    /readloop_static "$SC_N" /tmp/sc_go > /tmp/sc_rl.out &
    sc_rl=$!
    sc_wait /tmp/sc_rl.out '^ready'
    /stk stackcount -v -p "$sc_rl" "$@" > /tmp/sc.out 2>&1 &
    sc_pid=$!
    sc_wait /tmp/sc.out 'attached with' "$sc_pid"
    touch /tmp/sc_go
    sc_wait /tmp/sc_rl.out '^done' "$sc_pid"
    kill -INT "$sc_pid" 2>/dev/null
    wait "$sc_pid"
    sc_rc=$?
    kill "$sc_rl"
    echo "@@CASE $sc_case"
    cat /tmp/sc.out
    cat /tmp/sc_file.* 2>/dev/null
    echo "@@RC $sc_rc"
}
# Both shapes from one capture: folded (checked) and bcc's text (shown in the README).
sc_run stackcount_vfs_read -o /tmp/sc_file.folded -o /tmp/sc_file.txt vfs_read
sc_run stackcount_wildcard -d -f 'vfs_rea*'
sc_run stackcount_regex -d -r -f 'vfs_read$'
for m in fentry kprobe.multi kprobe kprobe_legacy; do
    sc_run "stackcount_$m" --mechanism "$m" -f vfs_read
done
# Many functions: kprobe.multi where the kernel has it (one link), fentry per function otherwise.
sc_run stackcount_many -f 'vfs_*'
sc_run stackcount_tracepoint -f t:syscalls:sys_enter_read
sc_run stackcount_uprobe -f c:malloc
sc_run stackcount_usdt -f u:readloop_static:guarded
echo "@@CASE stackcount_unknown"
/stk stackcount --mechanism kprobe_legacy nosuch_function_xyz 2>&1
echo "@@RC $?"
# kill -9 while legacy kprobes are attached: stk's guard removes them.
/stk stackcount -v --mechanism kprobe_legacy vfs_read > /tmp/sc.out 2>&1 &
sc_pid=$!
sc_wait /tmp/sc.out 'attached with' "$sc_pid"
echo "@@CASE stackcount_kill9"
grep -c 'attached with' /tmp/sc.out
kill -9 "$sc_pid"
cat /tmp/sc.out
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
