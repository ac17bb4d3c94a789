# Guest case: stk resources on tests/workloads/resources (static glibc, no frame
# pointers): 8 MiB of memory touched, 8 MiB written and read back with O_DIRECT on
# the NVMe disk tests/vm/run.sh attaches, 8 MiB over loopback TCP and 1,024,000
# bytes over UDP, each from a known function; every kind but faults at once with
# the mechanisms stk chooses, then the classic tracepoints (and sys_exit for
# sockets) forced, then faults alone (a stack copy per fault where the kernel
# cannot walk stacks: 2048 of them), then by exceptions:page_fault_user (x86 only). The tracepoints
# this kernel has are listed for the host's checks.
ifconfig lo 127.0.0.1 up 2>/dev/null
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
echo "@@CASE resources_events"
for e in kmem/rss_stat block/block_getrq sock/sock_send_length raw_syscalls/sys_exit exceptions/page_fault_user; do
    [ -d "/sys/kernel/tracing/events/$e" ] && echo "event $e"
done
[ -b /dev/nvme0n1 ] && echo "disk /dev/nvme0n1"
echo "@@RC 0"
umount /sys/kernel/tracing 2>/dev/null
# resources_run CASE MODE APPLET STK-ARGS...: the workload in MODE, stk APPLET -p on it from
# before it starts until it is done, its output between the case's markers (record's case too).
resources_run() {
    local case=$1 mode=$2 applet=$3 rpid spid rc
    shift 3
    rm -f /tmp/res.out /tmp/stk.out   # a stale "ready PID" must not be read as this run's
    /resources_static "$mode" 8 /dev/nvme0n1 > /tmp/res.out 2>&1 &
    for _ in $(seq 50); do rpid=$(sed -n 's/^ready //p' /tmp/res.out); [ -n "$rpid" ] && break; sleep 0.1; done
    /stk "$applet" -v -p "$rpid" "$@" > /tmp/stk.out 2>&1 &
    spid=$!
    # until stk says it traces (or ends): the workload must not start its phases before that
    attached=no
    for _ in $(seq 1200); do grep -q 'tracing .* ms after start' /tmp/stk.out && { attached=yes; break; }
                             kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill -USR1 "$rpid"
    for _ in $(seq 1200); do grep -q '^done' /tmp/res.out && break; sleep 0.1; done
    sleep 1
    stk_settle "$spid"
    kill -INT "$spid" 2>/dev/null
    wait "$spid"
    rc=$?
    kill "$rpid" 2>/dev/null
    echo "@@CASE $case"
    cat /tmp/stk.out
    grep -q '^done' /tmp/res.out || echo "workload: $(cat /tmp/res.out)"
    [ "$attached" = yes ] || echo "workload: started before stk said it was tracing"
    sed -n 's/^udp received /workload: udp received /p' /tmp/res.out
    echo "@@RC $rc"
}
resources_run resources all resources -f -e rss,block,block-time,read,write,send,recv
resources_run resources_classic all resources -f -e rss,block,write,send --mechanism rss=tracepoint,block=tracepoint,write=tracepoint,send=sys_exit
resources_run resources_faults memory resources -f -e faults
resources_run resources_faults_tp memory resources -f -e faults --mechanism faults=tracepoint
