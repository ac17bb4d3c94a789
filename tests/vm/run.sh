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
TIMEOUT=${STK_VM_TIMEOUT:-120}

for p in qemu-system-x86 cpio busybox-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="${missing:-} $p"
done
if [ -n "${missing:-}" ]; then
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends $missing >/dev/null ||
        { fail setup "cannot install$missing"; exit 0; }
fi

kernels=$(bash "$root/tests/vm/fetch-kernels.sh") || { fail fetch_kernels "apt could not fetch the kernels"; exit 0; }

# The initramfs: busybox, stk, the static workload, init.
mkdir -p "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev" "$work/root/tmp"
cp /bin/busybox "$work/root/bin/busybox"
cp "$STK" "$work/root/stk"
cp "$BUILD/tests/workloads/burn_static" "$work/root/burn_static"
cp "$BUILD/tests/workloads/offcpu_static" "$work/root/offcpu_static"
cp "$root/tests/vm/init.sh" "$work/root/init"
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.gz"

# case_output LOG CASE -> the lines between "@@CASE CASE" and its "@@RC"
case_output() { awk -v c="$2" '$0 == "@@CASE " c { on = 1; next } on && /^@@RC / { exit } on' "$1"; }
case_rc() { awk -v c="$2" '$0 == "@@CASE " c { on = 1; next } on && /^@@RC / { print $2; exit }' "$1"; }
field_of() { printf '%s\n' "$1" | sed -n "s/^$2: \([a-z_.]*\).*/\1/p" | head -1; }
cfg() { sed -n "s/^CONFIG_$2=\(.*\)/\1/p" "$1" | head -1; }

# Every boot's console log is kept for inspection.
logs=$BUILD/vm-logs
rm -rf "$logs" && mkdir -p "$logs"
boot() { # VMLINUZ BTF LOG
    timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 2 -nographic \
        -no-reboot -kernel "$1" -initrd "$work/initramfs.gz" \
        -append "console=ttyS0 panic=-1 quiet stk.btf=$2" 2>&1 < /dev/null | tr -d '\r' > "$3"
}

matrix=()
while read -r suite release vmlinuz; do
    if [ ! -f "$(dirname "$vmlinuz")/config" ]; then
        fail "$suite/config" "no kernel config for $release: cannot check features"
        continue
    fi
    config=$(dirname "$vmlinuz")/config
    for btf in visible hidden; do
        log=$logs/$release.$btf.log
        id="$suite-${release%%-*}/$btf"
        start=$(date +%s)
        boot "$vmlinuz" "$btf" "$log"
        # TCG occasionally crashes the guest kernel (seen on 6.12, about 1 boot
        # in 5, an oops killing init): retry once, say so, keep the first log.
        if ! grep -q '^@@END' "$log"; then
            cp "$log" "$log.first"
            why=$(grep -m1 -E 'Oops|BUG:|Kernel panic|general protection' "$log" | head -c 120)
            echo "NOTE $id: boot did not finish (${why:-no oops line}); retrying once, first log in $log.first"
            boot "$vmlinuz" "$btf" "$log"
        fi
        secs=$(( $(date +%s) - start ))
        if ! grep -q '^@@END' "$log"; then
            fail "$id/boot" "no @@END after ${secs}s: $(tail -5 "$log" | tr '\n' ' ')"
            matrix+=("$release $btf boot=FAIL")
            continue
        fi
        pass "$id/boot"
        info=$(case_output "$log" info)
        prof=$(case_output "$log" profile)
        expect_eq "$id/info_rc" "$(case_rc "$log" info)" 0
        expect_eq "$id/profile_rc" "$(case_rc "$log" profile)" 0
        if printf '%s\n' "$prof" | grep -q 'main;known_mid;known_leaf [0-9]*$'; then pass "$id/profile_frames"
        else fail "$id/profile_frames" "$(printf '%s' "$prof" | head -c 300)"; fi

        offcpu=$(case_output "$log" offcputime)
        expect_eq "$id/offcputime_rc" "$(case_rc "$log" offcputime)" 0
        if printf '%s\n' "$offcpu" | grep -q '^sleeper;start;sleeper_thread;.*do_nanosleep;.* [0-9]*$'; then
            pass "$id/offcputime_frames"
        else fail "$id/offcputime_frames" "$(printf '%s' "$offcpu" | grep -v '^offcputime:' | head -c 300)"; fi
        offmech=$(printf '%s\n' "$offcpu" | sed -n 's/^offcputime: mechanism \([a-z_]*\).*/\1/p')
        # Forced fallbacks: the tracepoint always; kprobe on finish_task_switch where kprobes exist.
        forced=""
        for m in tracepoint kprobe; do
            out=$(case_output "$log" "offcputime_$m")
            # The kprobe variant reads task fields with CO-RE: it needs kprobes and BTF.
            if [ "$m" = kprobe ] && { [ "$(cfg "$config" KPROBES)" != y ] || [ "$btf" = hidden ]; }; then
                expect_eq "$id/offcputime_${m}_refused" "$(case_rc "$log" "offcputime_$m")" 2
                forced="$forced $m=refused"
                continue
            fi
            expect_eq "$id/offcputime_${m}_rc" "$(case_rc "$log" "offcputime_$m")" 0
            used=$(printf '%s\n' "$out" | sed -n 's/^offcputime: mechanism \([a-z_]*\).*/\1/p')
            expect_eq "$id/offcputime_${m}_used" "$used" "$m"
            if printf '%s\n' "$out" | grep -q '^sleeper;start;sleeper_thread;.*do_nanosleep;.* [0-9]*$'; then
                pass "$id/offcputime_${m}_frames"; forced="$forced $m=ok"
            else
                fail "$id/offcputime_${m}_frames" "$(printf '%s' "$out" | grep -v '^offcputime:' | head -c 300)"
                forced="$forced $m=FAIL"
            fi
        done

        if [ "$btf" = visible ]; then want_btf=sysfs; else want_btf=none; fi
        expect_eq "$id/btf_source" "$(field_of "$info" btf)" "$want_btf"
        # The kernel's own config is the independent witness of what exists.
        kp=no; [ "$(cfg "$config" KPROBES)" = y ] && kp=yes
        expect_eq "$id/kprobe" "$(field_of "$info" kprobe)" "$kp"
        expect_eq "$id/perf_event" "$(field_of "$info" perf_event)" yes
        expect_eq "$id/raw_tp" "$(field_of "$info" raw_tp)" yes
        expect_eq "$id/tracepoint" "$(field_of "$info" tracepoint)" yes
        expect_eq "$id/uprobe" "$(field_of "$info" uprobe)" "$([ "$(cfg "$config" UPROBE_EVENTS)" = y ] && echo yes || echo no)"
        if [ "$btf" = visible ]; then
            expect_eq "$id/tp_btf" "$(field_of "$info" tp_btf)" yes
            expect_eq "$id/task_iter" "$(field_of "$info" task_iter)" yes
            expect_eq "$id/offcputime_mech" "$(field_of "$info" 'offcputime sched_switch')" tp_btf
            expect_eq "$id/offcputime_used" "$offmech" tp_btf
            expect_eq "$id/threadstate_mech" "$(field_of "$info" 'threadstate thread sampling')" task_iter
        else
            expect_eq "$id/fentry_hidden" "$(field_of "$info" fentry)" no
            expect_eq "$id/offcputime_mech" "$(field_of "$info" 'offcputime sched_switch')" raw_tp
            expect_eq "$id/offcputime_used" "$offmech" raw_tp
            expect_eq "$id/threadstate_mech" "$(field_of "$info" 'threadstate thread sampling')" tracepoint_state
        fi
        kfn=$(field_of "$info" 'stackcount kernel function')
        matrix+=("$release $btf ${secs}s profile=$(printf '%s\n' "$prof" | grep -q known_leaf && echo ok || echo FAIL) offcputime=${offmech:-FAIL}${forced// /,} kernel-function=$kfn sched_switch=$(field_of "$info" 'offcputime sched_switch') threads=$(field_of "$info" 'threadstate thread sampling') fentry=$(field_of "$info" fentry) kprobe=$(field_of "$info" kprobe)")
    done
done <<< "$kernels"

echo "kernel matrix (release, BTF, boot+run time, result, mechanisms chosen):"
printf '  %s\n' "${matrix[@]}"
