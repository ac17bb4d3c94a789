#!/bin/busybox sh
# PID 1 of the test VM: runs each landed applet once against a workload with a
# known stack and prints results between markers for tests/vm/run.sh, then
# powers off. "stk.btf=hidden" on the kernel command line hides the kernel's
# BTF (tmpfs over /sys/kernel/btf), as on kernels built without it.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
case " $(cat /proc/cmdline) " in
    *" stk.btf=hidden "*) mount -t tmpfs none /sys/kernel/btf ;;
esac

echo "@@BEGIN $(uname -r)"
echo "@@CASE info"
/stk info 2>&1
echo "@@RC $?"

/burn_static 60 > /tmp/burn.out &
sleep 1
pid=$!
echo "@@CASE profile"
/stk profile -p "$pid" -f 3 2>&1
echo "@@RC $?"
kill "$pid"

# 300 naps of 50 ms: the sleeper keeps napping through all three captures below.
/offcpu_static 300 40 300 > /tmp/offcpu.out &
sleep 0.5
opid=$(sed -n 's/^ready //p' /tmp/offcpu.out)
echo "@@CASE offcputime"
/stk offcputime -v -p "$opid" -f 3 2>&1
echo "@@RC $?"
# The fallbacks old kernels need, forced while this kernel also has them.
for m in tracepoint kprobe; do
    echo "@@CASE offcputime_$m"
    /stk offcputime --mechanism "$m" -v -p "$opid" -f 2 2>&1
    echo "@@RC $?"
done
kill "$opid"
echo "@@END"
poweroff -f
