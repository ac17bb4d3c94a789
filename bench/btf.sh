#!/bin/bash
# bench/btf: what the BTF source costs at start-up. stk offcputime --state S
# on raw_tp (CO-RE reads of task state) is started REPEAT times with each
# source: the kernel's own BTF from sysfs, the same full BTF passed with
# --btf FILE, and the minimized BTF embedded in stk (sysfs hidden by a tmpfs
# in a private mount namespace; stk-hostbtf embeds this host's kernel). The
# figure is stk's own "tracing N ms after start" (process entry to attached),
# median, min and max; the embedded lookup itself (os-release, index, zlib,
# memfd) is inside it. Needs root and /sys/kernel/btf/vmlinux.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
HB=$BUILD/tests/stk-hostbtf
W=$BUILD/tests/workloads
REPEAT=${REPEAT:-11}
tmp=$(mktemp -d)
trap 'kill $wpid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
[ -x "$HB" ] || { echo "bench/btf: no $HB (make $HB; needs /sys/kernel/btf/vmlinux)" >&2; exit 1; }

"$W/offcpu" 0 600 100000 > "$tmp/w.out" & wpid=$!
for _ in $(seq 50); do grep -q '^ready ' "$tmp/w.out" && break; sleep 0.1; done
cp /sys/kernel/btf/vmlinux "$tmp/vmlinux.btf"

startup() { # how: sysfs | file | embedded
    local cmd="exec '$HB' offcputime -v --mechanism raw_tp --state S -p $wpid 0.2"
    case $1 in
    sysfs) sh -c "$cmd" ;;
    file) sh -c "$cmd --btf '$tmp/vmlinux.btf'" ;;
    embedded) unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && $cmd" ;;
    esac 2>&1 >/dev/null | sed -n 's/.*tracing \([0-9.]*\) ms after start.*/\1/p'
}
stats() { sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%8.1f %8.1f %8.1f %4d", a[int((NR + 1) / 2)], a[1], a[NR], NR; else printf "%8s %8s %8s %4d", "n/a", "", "", 0 }'; }

printf 'BTF source for CO-RE (offcputime raw_tp --state S), %d runs each, ms from start to attached:\n' "$REPEAT"
printf '  %-44s %8s %8s %8s %4s\n' source median min max n
# Interleaved, so load changes on this shared machine hit every source alike.
for i in $(seq "$REPEAT"); do
    for how in sysfs file embedded; do startup "$how" >> "$tmp/$how"; done
done
printf '  %-44s %s\n' "sysfs (kernel BTF, $(stat -c %s /sys/kernel/btf/vmlinux) bytes)" "$(stats < "$tmp/sysfs")"
printf '  %-44s %s\n' "--btf FILE (same BTF, copied)" "$(stats < "$tmp/file")"
printf '  %-44s %s\n' "embedded ($(tail -1 "$BUILD/tests/btf-host/sizes.txt" | sed 's/.*minimized \([0-9]*\) .*/\1/') bytes minimized, zlib)" "$(stats < "$tmp/embedded")"
