#!/bin/bash
# needs: root (fetches kernels with apt; qemu itself runs unprivileged)
# The kernel matrix: boots each Debian cloud kernel under qemu (TCG) with an
# initramfs holding only busybox, stk and static workloads, twice (BTF
# visible / hidden), checks each applet's output for the workload's known
# frames and stk's mechanism choices against the kernel's own config, and
# prints a matrix. One PASS/FAIL line per check for tests/run.sh.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$root/build}
STK=${STK:-$BUILD/stk}
SUITE=vm
. "$root/tests/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# ARCH (the Makefile's x86 or arm64; default this host's) picks the kernels,
# busybox, qemu and the stk under test ($BUILD is that architecture's build).
case ${ARCH:-$(uname -m)} in
    x86|x86_64) ARCH=x86 btf_arch=x86_64 qemu_pkg=qemu-system-x86 ;;
    arm64|aarch64) ARCH=arm64 btf_arch=arm64 qemu_pkg=qemu-system-arm ;;
    *) fail setup "no kernel matrix for ARCH=$ARCH"; exit 0 ;;
esac
export ARCH
[ $ARCH = x86 ] || SUITE=vm-$ARCH   # both matrices run in make check: distinct names
# A boot's time limit, well above the longest boot seen: idle, x86_64 boots
# take 60-80 s and arm64 ones 100-200 s (TCG runs them about half as fast);
# with the 2-core host at load 8, x86_64 took up to 200 s with the --unwind
# dwarf cases and arm64 230 s without them.
TIMEOUT=${STK_VM_TIMEOUT:-$([ $ARCH = arm64 ] && echo 400 || echo 300)}
# What the checks expect to differ per architecture: the kernel's syscall
# entry function (above the tracepoints and syscalls in kernel stacks), and
# the frames below a musl thread's start(): none on x86_64; on aarch64 musl's
# __clone leaves the parent's frame pointer in x29, so the frame-pointer
# chain runs on into the creating thread's stale frame (grep BRE).
if [ $ARCH = arm64 ]; then
    k_syscall_entry=do_el0_svc u_thread_base='\([^;]*;\)\{0,1\}'
else
    k_syscall_entry=do_syscall_64 u_thread_base=''
fi

for p in $qemu_pkg cpio busybox-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="${missing:-} $p"
done
if [ -n "${missing:-}" ]; then
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends $missing >/dev/null ||
        { fail setup "cannot install$missing"; exit 0; }
fi

kernels=$(bash "$root/tests/vm/fetch-kernels.sh") || { fail fetch_kernels "apt could not fetch the kernels"; exit 0; }

# Embedded BTF (btf/): the guest's stk carries the BTF of exactly these
# kernels, from a btfhub-layout fixture extracted from their vmlinuz (cached
# next to them); each guest gets its suite's os-release (stk.osrel=ID:VERSION_ID).
logs=$BUILD/vm-logs
rm -rf "$logs" && mkdir -p "$logs"
btf_tree=${STK_VM_BTF_TREE:-${STK_VM_CACHE:-/var/cache/stk-vm}/btf-fixture$([ $ARCH = x86 ] || echo "-$ARCH")}
if vm_osrel=$(printf '%s\n' "$kernels" | bash "$root/btf/make-fixture.sh" "$btf_tree" 2>"$logs/btf-fixture.log") &&
   make -s -C "$root" ARCH="$ARCH" BUILD="$BUILD" STK_VM_BTF_TREE="$btf_tree" "$BUILD/tests/stk-vm" >"$logs/stk-vm.log" 2>&1; then
    STK=${STK_VM:-$BUILD/tests/stk-vm}
else
    fail btf_fixture "no stk with the kernels' BTF: $(tail -3 "$logs"/btf-fixture.log "$logs"/stk-vm.log | tr '\n' ' ')"
fi

# The initramfs: busybox, stk, the static workload, init.
mkdir -p "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev" "$work/root/tmp"
busybox=$(bash "$root/tests/vm/fetch-busybox.sh") || { fail busybox "no static busybox for $ARCH"; exit 0; }
cp "$busybox" "$work/root/bin/busybox"
cp "$STK" "$work/root/stk"
# Every static workload (*_static) and every guest case go in.
cp "$BUILD"/tests/workloads/*_static "$work/root/"
cp "$root/tests/vm/init.sh" "$work/root/init"
mkdir -p "$work/root/cases"
cp "$root"/tests/vm/cases/*.sh "$work/root/cases/"
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.gz"

# case_output LOG CASE -> the lines between "@@CASE CASE" and its "@@RC"
case_output() { awk -v c="$2" '$0 == "@@CASE " c { on = 1; next } on && /^@@RC / { exit } on' "$1"; }
case_rc() { awk -v c="$2" '$0 == "@@CASE " c { on = 1; next } on && /^@@RC / { print $2; exit }' "$1"; }
field_of() { printf '%s\n' "$1" | sed -n "s/^$2: \([a-z_.]*\).*/\1/p" | head -1; }
cfg() { sed -n "s/^CONFIG_$2=\(.*\)/\1/p" "$1" | head -1; }
# cell TEXT: a column of this boot's row in the printed matrix.
cell() { row="$row $1"; }

# Every boot's console log is kept for inspection (in $logs, made above).
# -cx16: qemu 7.2's TCG mis-emulates cmpxchg16b, which SLUB's fast path uses
# (about 1 boot in 12 of 6.12 crashed in __kmalloc with it). thread=single:
# no MTTCG memory-ordering surprises; the matrix is not faster with it here.
# arm64: the virt machine, console on its PL011 UART; pauth-impdef: qemu's
# own pointer-authentication hash instead of the architected QARMA, which
# TCG emulates slowly.
if [ $ARCH = arm64 ]; then
    qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on) console=ttyAMA0
else
    qemu=(qemu-system-x86_64 -cpu max,-cx16) console=ttyS0
fi
# A blank NVMe disk per boot (the driver is built into every kernel of the matrix):
# the resources case writes and reads it with O_DIRECT for block I/O.
boot() { # VMLINUZ BTF LOG OSREL: the guest's console in LOG, its seconds in LOG.secs
    local start=$(date +%s)
    truncate -s 64M "$3.disk"
    timeout "$TIMEOUT" "${qemu[@]}" -accel "tcg,thread=${STK_VM_TCG_THREAD:-single}" -m 1024 -smp 2 -nographic \
        -drive "file=$3.disk,if=none,id=disk,format=raw" -device nvme,serial=stk,drive=disk \
        -no-reboot -kernel "$1" -initrd "$work/initramfs.gz" \
        -append "console=$console panic=-1 quiet stk.btf=$2 stk.osrel=$4" 2>&1 < /dev/null | tr -d '\r' > "$3"
    rm -f "$3.disk"
    echo $(( $(date +%s) - start )) > "$3.secs"
}

# Boots share the host's cores through slots (STK_VM_SLOTS: a directory both
# matrices of make check use, one lock file per core; a qemu under TCG keeps
# one core busy): each boot waits for a free slot, so the two matrices' boots
# fill both cores until all are done instead of one matrix idling a core while
# the other's longer boots run one by one. arm64's boots, the longest, go
# first: an x86 boot waits while one of arm64's waits, so the shorter ones
# fill the end.
slots=${STK_VM_SLOTS:-$work/slots}
mkdir -p "$slots"
n_slots=$(nproc)
arm64_waiting() { # whether a live arm64 boot waits for a slot
    local w
    for w in "$slots"/waiting.arm64.*; do
        [ -e "$w" ] && kill -0 "${w##*.}" 2>/dev/null && return 0
    done
    return 1
}
with_slot() { # COMMAND...: run it holding one of the slots
    local i rc waiting=$slots/waiting.$ARCH.$BASHPID
    : > "$waiting"
    while :; do
        if [ $ARCH != arm64 ] && arm64_waiting; then
            sleep 1
            continue
        fi
        for i in $(seq "$n_slots"); do
            exec {slot_fd}>"$slots/$i"
            if flock -n "$slot_fd"; then
                rm -f "$waiting"
                "$@"
                rc=$?
                exec {slot_fd}>&-
                return $rc
            fi
            exec {slot_fd}>&-
        done
        sleep 0.5
    done
}
# boot_job VMLINUZ BTF LOG OSREL ID: one guest when a slot is free; a guest that does
# not finish (a TCG emulation fault crashing the kernel; see -cx16 above) is retried
# once, said in LOG.note, and its first log kept.
boot_job() {
    local why
    with_slot boot "$1" "$2" "$3" "$4"
    if ! grep -q '^@@END' "$3"; then
        cp "$3" "$3.first"
        why=$(grep -m1 -E 'Oops|BUG:|Kernel panic|general protection' "$3" | head -c 120)
        echo "NOTE $5: boot did not finish (${why:-no oops line}); retrying once, first log in $3.first" > "$3.note"
        with_slot boot "$1" "$2" "$3" "$4"
    fi
}

matrix=()
# STK_VM_KERNELS="bullseye sid" / STK_VM_BTF=visible limit a run (development).
kernels_wanted=${STK_VM_KERNELS:-}
btf_modes=${STK_VM_BTF:-visible hidden}
# Every boot first, in the background through the slots; then each one's checks, in order.
while read -r suite release vmlinuz; do
    if [ -n "$kernels_wanted" ] && [[ " $kernels_wanted " != *" $suite "* ]]; then continue; fi
    [ -f "$(dirname "$vmlinuz")/config" ] || continue
    guest_osrel=$(printf '%s\n' "${vm_osrel:-}" | awk -v r="$release" '$1 == r { print $2 ":" ($3 == "-" ? "" : $3) }')
    for btf in $btf_modes; do
        boot_job "$vmlinuz" "$btf" "$logs/$release.$btf.log" "$guest_osrel" "$suite-${release%%-*}/$btf" &
    done
done <<< "$kernels"
wait
while read -r suite release vmlinuz; do
    if [ -n "$kernels_wanted" ] && [[ " $kernels_wanted " != *" $suite "* ]]; then continue; fi
    if [ ! -f "$(dirname "$vmlinuz")/config" ]; then
        fail "$suite/config" "no kernel config for $release: cannot check features"
        continue
    fi
    config=$(dirname "$vmlinuz")/config
    for btf in $btf_modes; do
        log=$logs/$release.$btf.log
        id="$suite-${release%%-*}/$btf"
        [ -f "$log.note" ] && cat "$log.note"
        secs=$(cat "$log.secs" 2>/dev/null || echo 0)
        if ! grep -q '^@@END' "$log"; then
            fail "$id/boot" "no @@END after ${secs}s: $(tail -5 "$log" | tr '\n' ' ')"
            matrix+=("$release $btf boot=FAIL")
            continue
        fi
        pass "$id/boot"
        row="$release $btf ${secs}s"
        for check in "$root"/tests/vm/checks/*.sh; do
            # the cases of a "BTF: visible only" check do not run with BTF hidden (tests/vm/init.sh)
            [ "$btf" = hidden ] && grep -q '^# BTF: visible only' "$check" && continue
            . "$check"
        done
        matrix+=("$row")
    done
done <<< "$kernels"

echo "kernel matrix, $btf_arch (release, BTF, boot+run time, result, mechanisms chosen):"
printf '  %s\n' "${matrix[@]}"
