# Guest case: threadstate on threads in known states (tests/workloads/threads.c):
# the source stk picks, then the two fallbacks forced. One busy thread on CPU 1,
# and stk there too when busybox has taskset, so the spinner keeps CPU 0.
/threads_static known 1 > /tmp/threads.out &
tpid=$!
sleep 1.5
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 1"
for src in "" tracepoint_state proc; do
    echo "@@CASE threadstate${src:+_$src}"
    $pin /stk threadstate -v ${src:+--source "$src"} -a -g comm,state,syscall -F 10 -i 10 -d 1.5 -p "$tpid" 2>&1
    echo "@@RC $?"
done
kill "$tpid"
