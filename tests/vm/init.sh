#!/bin/busybox sh
# PID 1 of the test VM: runs every case in /cases (one per applet, in name
# order), each printing its results between markers for tests/vm/run.sh, then
# powers off. "stk.btf=hidden" on the kernel command line hides the kernel's
# BTF (tmpfs over /sys/kernel/btf), as on kernels built without it.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
STK_BTF=visible
case " $(cat /proc/cmdline) " in
    *" stk.btf=hidden "*) STK_BTF=hidden; mount -t tmpfs none /sys/kernel/btf ;;
esac
# "stk.osrel=debian:12": the os-release of the kernel's suite, for the
# embedded BTF lookup; an empty VERSION_ID is left out, as on Debian sid.
osrel=$(sed -n 's/.*stk\.osrel=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$osrel" ]; then
    mkdir -p /etc
    echo "ID=${osrel%%:*}" > /etc/os-release
    [ -n "${osrel#*:}" ] && echo "VERSION_ID=\"${osrel#*:}\"" >> /etc/os-release
fi

# stk_settle PID...: until the tracers' CPU time holds still for half a second (at most
# 30 s): samples they still had queued (user-space unwinding, slow under TCG) are done
# before the case's SIGINT, which gives what is queued only a short time.
stk_settle() {
    st_i=0 st_was=-1
    while [ $st_i -lt 60 ]; do
        st_now=$(for st_p in "$@"; do cat "/proc/$st_p/stat" 2>/dev/null; done | awk '{ s += $14 + $15 } END { print s + 0 }')
        [ "$st_now" = "$st_was" ] && break
        st_was=$st_now
        sleep 0.5
        st_i=$((st_i + 1))
    done
}

echo "@@BEGIN $(uname -r)"
# "@@TIME CASE SECONDS" after each case file: where a boot's minutes go (the log keeps it).
# A case marked "BTF: visible only" checks nothing that hidden BTF changes: hidden boots leave it out.
for c in /cases/*.sh; do
    [ "$STK_BTF" = hidden ] && grep -q '^# BTF: visible only' "$c" && continue
    read -r t0 _ < /proc/uptime
    . "$c"
    read -r t1 _ < /proc/uptime
    echo "@@TIME ${c##*/} $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
done
echo "@@END"
poweroff -f
