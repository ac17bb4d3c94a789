#!/bin/bash
# needs: root (loads and attaches BPF programs)
# `stk info` against facts read independently of stk: the kernel config,
# sysctls, sysfs, and Debian's bpftool loading the same kind of program.
SUITE=info
. "$(dirname "$0")/../lib.sh"

run_capture "$STK" info
if [ $RC -ne 0 ]; then
    fail info_runs "rc=$RC err=$ERR"
    exit 0
fi
INFO=$OUT
# info_runs: every line info must print is there, in its form: the kernel and
# machine as uname says, where BTF and tracefs come from, every feature with
# yes or no and why, the sysctls and capabilities, the unwinding rung.
missing=""
for want in "kernel release: $(uname -r)" "machine: $(uname -m)"; do
    printf '%s\n' "$INFO" | grep -qxF "$want" || missing="$missing '$want'"
done
for f in perf_event kprobe kprobe_legacy kprobe.multi fentry tp_btf raw_tp tracepoint uprobe uprobe.multi usdt \
    ringbuf task_iter bpf_get_stack global_data bpf_loop task_iter_copy; do
    printf '%s\n' "$INFO" | grep -qE "^${f//./\\.}: (yes|no) \(.+\)$" || missing="$missing '$f: yes|no (why)'"
done
for l in btf tracefs lockdown unwind kernel.perf_event_max_stack kernel.perf_event_max_sample_rate \
    kernel.unprivileged_bpf_disabled kernel.kptr_restrict capabilities; do
    printf '%s\n' "$INFO" | grep -qE "^${l//./\\.}: .+" || missing="$missing '$l: ...'"
done
expect_eq info_runs "${missing:-all lines}" "all lines"
# every feature has its row in core/bpf/features.c's probe table
expect_eq every_feature_has_a_probe "$(printf '%s\n' "$INFO" | grep -c 'stk has no probe for it')" 0

field() { printf '%s\n' "$INFO" | sed -n "s/^$1: \([a-z_.]*\).*/\1/p" | head -1; }
line() { printf '%s\n' "$INFO" | sed -n "s/^$1: //p" | head -1; }

expect_eq kernel_release "$(line 'kernel release')" "$(uname -r)"

if [ -r /sys/kernel/btf/vmlinux ]; then want_btf=sysfs; else want_btf=none; fi
expect_eq btf_source "$(field btf)" "$want_btf"
# What `stk --version` says about the embedded archive matches the build.
if [ -s "$BUILD/btf/archive.stkbtf" ] && [ "$(stat -c %s "$BUILD/btf/archive.stkbtf")" -gt 32 ]; then
    expect_contains version_embedded_btf "$("$STK" --version)" "embedded BTF: "
else
    expect_contains version_embedded_btf "$("$STK" --version)" "embedded BTF: none (built without BTF_ARCHIVE)"
fi

for s in perf_event_max_stack perf_event_max_sample_rate unprivileged_bpf_disabled kptr_restrict; do
    expect_eq "sysctl_$s" "$(line "kernel.$s")" "$(cat /proc/sys/kernel/$s)"
done
expect_contains capabilities "$(line capabilities)" "CAP_SYS_ADMIN"

if [ "$(kernel_config BPF_EVENTS)" = "?" ]; then
    fail kernel_config "no /proc/config.gz or /boot/config-$(uname -r): cannot verify features"
    exit 0
fi
cfg_y() { [ "$(kernel_config "$1")" = y ]; }
have_btf() { [ -r /sys/kernel/btf/vmlinux ]; }

# fentry: the independent witness is Debian's bpftool loading a two-instruction
# fentry program (BTF + trampoline support + whatever lockdown allows), inside
# a private mount namespace so its bpffs pin vanishes with it.
fentry_by_bpftool() {
    local d
    d=$(mktemp -d)
    printf '%s\n' '#include <linux/bpf.h>' '#include <bpf/bpf_helpers.h>' \
        'SEC("fentry/vfs_read") int f(void *ctx) { return 0; }' \
        'char LICENSE[] SEC("license") = "GPL";' > "$d/f.bpf.c"
    clang -target bpf -O2 -g -I"$BUILD/deps/include" -isystem "$BUILD/uapi-include" \
        -c "$d/f.bpf.c" -o "$d/f.o" || { rm -rf "$d"; return 2; }
    mkdir "$d/fs"
    unshare -m sh -c "mount -t bpf bpf '$d/fs' && bpftool prog load '$d/f.o' '$d/fs/f'" >/dev/null 2>&1
    local rc=$?
    rm -rf "$d"
    return $rc
}
fentry_by_bpftool; frc=$?
if [ $frc -eq 2 ]; then fail fentry_witness "could not build the bpftool witness program"; fi
want_fentry=$([ $frc -eq 0 ] && echo yes || echo no)

expect_eq perf_event "$(field perf_event)" "$(yesno cfg_y PERF_EVENTS)"
expect_eq kprobe "$(field kprobe)" "$(yesno eval 'cfg_y KPROBES && [ -e /sys/bus/event_source/devices/kprobe ]')"
expect_eq kprobe_legacy "$(field kprobe_legacy)" "$(yesno eval 'cfg_y KPROBES && cfg_y KPROBE_EVENTS')"
expect_eq kprobe_multi "$(field kprobe.multi)" "$(yesno eval 'cfg_y FPROBE && kernel_at_least 5 18 && [ $want_fentry = yes ]')"
expect_eq fentry "$(field fentry)" "$want_fentry"
expect_eq tp_btf "$(field tp_btf)" "$(yesno eval 'have_btf && kernel_at_least 5 5')"
expect_eq raw_tp "$(field raw_tp)" "$(yesno eval 'cfg_y BPF_EVENTS && kernel_at_least 4 17')"
expect_eq tracepoint "$(field tracepoint)" "$(yesno eval 'cfg_y BPF_EVENTS && cfg_y TRACEPOINTS')"
expect_eq uprobe "$(field uprobe)" "$(yesno eval 'cfg_y UPROBE_EVENTS && [ -e /sys/bus/event_source/devices/uprobe ]')"
expect_eq usdt "$(field usdt)" "$(yesno eval 'cfg_y UPROBE_EVENTS')"
expect_eq ringbuf "$(field ringbuf)" "$(yesno kernel_at_least 5 8)"
expect_eq task_iter "$(field task_iter)" "$(yesno eval 'have_btf && kernel_at_least 5 8')"
expect_eq bpf_get_stack "$(field bpf_get_stack)" "$(yesno kernel_at_least 4 18)"
expect_eq global_data "$(field global_data)" "$(yesno kernel_at_least 5 2)"

# Mechanism choice follows the documented order from the probed features.
if [ "$(field tp_btf)" = yes ]; then want=tp_btf; elif [ "$(field raw_tp)" = yes ]; then want=raw_tp; else want=tracepoint; fi
expect_eq offcputime_mechanism "$(field 'offcputime sched_switch')" "$want"
if [ "$(field raw_tp)" = yes ]; then want=raw_tp; else want=tracepoint; fi
expect_eq stackcount_tracepoint_mechanism "$(field 'stackcount tracepoint')" "$want"
if [ "$(field task_iter)" = yes ]; then want=task_iter; else want=tracepoint_state; fi
expect_eq threadstate_mechanism "$(field 'threadstate thread sampling')" "$want"
want=none
for m in fentry kprobe.multi kprobe kprobe_legacy; do
    if [ "$(field "$m")" = yes ]; then want=$m; break; fi
done
expect_eq stackcount_kernel_mechanism "$(field 'stackcount kernel function')" "$want"

# Nothing left behind: programs, links, probe events, or a tracefs mount on the host.
require_bpftool
progs=$(bpftool prog list 2>/dev/null | grep -c stk_feat)
expect_eq no_programs_left "$progs" 0
links=$(bpftool link list 2>/dev/null | grep -c stk_feat)
expect_eq no_links_left "$links" 0
# probe events are the kernel's, whichever tracefs shows them: read in a mount namespace
# of this test's own, with tracefs mounted there when the host has none (as it boots)
for f in kprobe_events uprobe_events; do
    n=$(unshare -m sh -c "{ [ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing; } &&
                          if [ -e /sys/kernel/tracing/$f ]; then grep -c . /sys/kernel/tracing/$f; else echo absent; fi" 2>&1)
    if [ "$n" = absent ]; then skip "no_probe_events_$f" "this kernel has no $f"
    else expect_eq "no_probe_events_$f" "$n" 0; fi
done
mounts_before=$(wc -l < /proc/self/mountinfo)
"$STK" info >/dev/null 2>&1
expect_eq host_mounts_unchanged "$(wc -l < /proc/self/mountinfo)" "$mounts_before"

# Explicit BTF file: accepted when valid, one-line error and exit 2 when not.
if [ -r /sys/kernel/btf/vmlinux ]; then
    run_capture "$STK" info --btf /sys/kernel/btf/vmlinux
    expect_contains btf_file_used "$OUT" "btf: file /sys/kernel/btf/vmlinux"
fi
run_capture "$STK" info --btf /nonexistent.btf
expect_eq btf_missing_rc "$RC" 2
expect_contains btf_missing_msg "$ERR" "--btf /nonexistent.btf: not readable: No such file or directory"
run_capture "$STK" info --btf /etc/hostname
expect_eq btf_invalid_rc "$RC" 2
expect_contains btf_invalid_msg "$ERR" "not a BTF file"

# Without privileges: a clear message and exit 2.
run_capture setpriv --reuid=65534 --regid=65534 --clear-groups "$STK" info
expect_eq unprivileged_rc "$RC" 2
expect_contains unprivileged_msg "$ERR" "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)"

# BTF hidden (tmpfs over /sys/kernel/btf in a private mount namespace), as on
# kernels built without it: BTF-only mechanisms are reported unavailable with
# the reason, and the fallbacks are chosen.
run_capture unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$STK' info"
NOBTF=$OUT
nb() { printf '%s\n' "$NOBTF" | sed -n "s/^$1: \([a-z_.]*\).*/\1/p" | head -1; }
expect_eq nobtf_rc "$RC" 0
# none, or (built with BTF_ARCHIVE holding this kernel) the embedded entry for it
case "$(printf '%s\n' "$NOBTF" | sed -n 's/^btf: //p')" in
    none*|"embedded "*"/$(uname -r) ("*) pass nobtf_source ;;
    *) fail nobtf_source "$(printf '%s\n' "$NOBTF" | grep '^btf:')" ;;
esac
expect_eq nobtf_perf_event "$(nb perf_event)" "$(field perf_event)"
expect_eq nobtf_raw_tp "$(nb raw_tp)" "$(field raw_tp)"
expect_eq nobtf_fentry "$(nb fentry)" no
expect_contains nobtf_fentry_reason "$NOBTF" "fentry: no (needs the running kernel's own BTF"
expect_eq nobtf_tp_btf "$(nb tp_btf)" no
expect_eq nobtf_task_iter "$(nb task_iter)" no
if [ "$(field raw_tp)" = yes ]; then want=raw_tp; else want=tracepoint; fi
expect_eq nobtf_offcputime_fallback "$(nb 'offcputime sched_switch')" "$want"
expect_eq nobtf_threadstate_fallback "$(nb 'threadstate thread sampling')" tracepoint_state

# --- embedded BTF (btf/): stk-hostbtf embeds this host's own kernel BTF,
# minimized, under its os-release key. With sysfs hidden it must find it by
# os-release ID + VERSION_ID + arch + uname -r, use it for CO-RE (offcputime
# reads task state through raw_tp), keep fentry/tp_btf/iterators off (their
# attach targets need the kernel's own BTF), and leave no file behind.
HB=$BUILD/tests/stk-hostbtf
if [ ! -x "$HB" ]; then
    fail embedded_btf "no $HB (make check builds it; needs /sys/kernel/btf/vmlinux on this host)"
    exit 0
fi
. /etc/os-release
want_key="$ID/${VERSION_ID:--}/$(uname -m | sed 's/^aarch64$/arm64/')/$(uname -r)"
expect_contains embedded_version "$("$HB" --version)" "embedded BTF: 1 kernel "
hidden() { unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && $1"; }
run_capture hidden "exec '$HB' info"
EMB=$OUT
eb() { printf '%s\n' "$EMB" | sed -n "s/^$1: \([a-z_.]*\).*/\1/p" | head -1; }
expect_eq embedded_info_rc "$RC" 0
expect_contains embedded_source "$EMB" "btf: embedded $want_key (os-release ID, VERSION_ID, arch and kernel release match"
expect_eq embedded_fentry "$(eb fentry)" no
expect_eq embedded_tp_btf "$(eb tp_btf)" no
expect_contains embedded_tp_btf_reason "$EMB" "tp_btf: no (needs the running kernel's own BTF"
expect_eq embedded_task_iter "$(eb task_iter)" no
expect_eq embedded_raw_tp "$(eb raw_tp)" "$(field raw_tp)"
expect_eq embedded_offcputime "$(eb 'offcputime sched_switch')" "$(nb 'offcputime sched_switch')"

# CO-RE through the embedded types: --state needs task_struct's state field;
# without BTF it falls back to the tracepoint record, with it raw_tp reads it.
tmp=$(mktemp -d)
"$BUILD/tests/workloads/offcpu" 300 40 300 > "$tmp/w.out" & wpid=$!
for _ in $(seq 50); do grep -q '^ready ' "$tmp/w.out" && break; sleep 0.1; done
hidden "exec '$HB' offcputime -v -f --state S -p $wpid 2" > "$tmp/state" 2> "$tmp/state.err" & spid=$!
sleep 1
# The inflated BTF lives in a memfd, not in a file that could be left behind.
expect_contains embedded_memfd "$(ls -l /proc/$spid/fd/ 2>/dev/null; for c in $(pgrep -P $spid); do ls -l /proc/$c/fd/; done 2>/dev/null)" "memfd:stk-btf"
wait $spid
expect_eq embedded_state_rc "$?" 0
expect_contains embedded_state_mech "$(cat "$tmp/state.err")" "offcputime: mechanism raw_tp"
expect_contains embedded_state_btf "$(cat "$tmp/state.err")" "BTF embedded"
if grep -q '^sleeper;.*sleeper_thread;.*do_nanosleep;schedule;__schedule [0-9]*$' "$tmp/state"; then
    pass embedded_state_keeps_sleep
else fail embedded_state_keeps_sleep "$(head -c 400 "$tmp/state")"; fi
# The same filter with D (uninterruptible) must drop every sleep: CO-RE offsets are right.
hidden "exec '$HB' offcputime -f --state D --mechanism raw_tp -p $wpid 1" > "$tmp/stateD" 2>&1
expect_eq embedded_stateD_drops_sleeps "$(grep -cE '^(sleeper|piperead|pipewrite);' "$tmp/stateD")" 0

# An os-release the archive does not know: one clear error naming the key and
# --btf, exit 2, where BTF is required; info still runs and says why.
printf 'ID=stknomatch\nVERSION_ID="1.0"\n' > "$tmp/os-release"
nomatch_key="stknomatch/1.0/$(uname -m | sed 's/^aarch64$/arm64/')/$(uname -r)"
run_capture hidden "mount --bind '$tmp/os-release' /etc/os-release && exec '$HB' offcputime --state S --mechanism raw_tp -p $wpid 1"
expect_eq nomatch_rc "$RC" 2
expect_contains nomatch_key "$ERR" "looked up $nomatch_key"
expect_contains nomatch_hint "$ERR" "pass --btf FILE"
expect_eq nomatch_one_line "$(printf '%s\n' "$ERR" | grep -c .)" 1
run_capture hidden "mount --bind '$tmp/os-release' /etc/os-release && exec '$HB' info"
expect_contains nomatch_info "$OUT" "btf: none (looked up $nomatch_key: the embedded archive (1 kernel) has no such entry)"
# --btf FILE still wins over everything (here: the host's BTF, copied).
cp /sys/kernel/btf/vmlinux "$tmp/vmlinux.btf"
run_capture hidden "mount --bind '$tmp/os-release' /etc/os-release && exec '$HB' offcputime -v -f --state S --btf '$tmp/vmlinux.btf' -p $wpid 1"
expect_eq nomatch_btf_file_rc "$RC" 0
expect_contains nomatch_btf_file_used "$ERR" "BTF file"
kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
rm -rf "$tmp"

# --- one ladder per kind of attach point: what `stk info` prints as a class's
# order is the order its applet climbs. From each applet's -v line (or its
# error when nothing works) take the rungs it passed over and the one it chose:
# that sequence must be the start of info's order, name for name.
# climbed TEXT: "a b c" from "... MECH (passed over: a: why; b: why) ..." (chosen last),
# or from "... on this kernel (a: why; b: why; c: why)" when none worked.
climbed() {
    printf '%s\n' "$1" | awk '
        function names(list,   out, depth, i, c, entry) {
            out = ""; depth = 0; entry = ""
            for (i = 1; i <= length(list); i++) {
                c = substr(list, i, 1)
                if (c == "(") depth++
                if (c == ")") { if (depth == 0) break; depth-- }
                if (c == ";" && depth == 0) { out = out " " first(entry); entry = ""; continue }
                entry = entry c
            }
            if (entry != "") out = out " " first(entry)
            return out
        }
        function first(e) { sub(/^ +/, "", e); sub(/:.*/, "", e); return e }
        {
            p = index($0, " (passed over: ")
            if (p) {
                head = substr($0, 1, p - 1); n = split(head, w, " ")
                print substr(names(substr($0, p + 15)), 2) " " w[n]; exit
            }
            p = index($0, "on this kernel (")
            if (!p) p = index($0, "works here (")
            if (p) { rest = substr($0, p); q = index(rest, "("); print substr(names(substr(rest, q + 1)), 2); exit }
            if (match($0, /(mechanism|source|attached with) [a-z_.]+/)) {
                m = substr($0, RSTART, RLENGTH); n = split(m, w, " "); print w[n]; exit
            }
        }'
}
# info_order CLASS-LINE-PREFIX [INFO]: "a b c" from "... (order: a > b > c)"
info_order() { printf '%s\n' "${2:-$INFO}" | sed -n "s/^$1: .*(order: \(.*\))$/\1/p" | sed 's/ > / /g' | head -1; }
# ladder_check NAME CLASS CLIMBED [INFO]: CLIMBED is a non-empty prefix of the class's order
ladder_check() {
    local order
    order=$(info_order "$2" "${4:-$INFO}")
    case "$order " in
        "$3 "*) [ -n "$3" ] && pass "$1" || fail "$1" "no mechanism found in the applet's output" ;;
        *) fail "$1" "applet climbed '$3', stk info's order for $2 is '$order'" ;;
    esac
}
W=$BUILD/tests/workloads
lt=$(mktemp -d)
"$W/readloop" 10 "$lt/never" > "$lt/rl.out" 2>&1 & rlpid=$!
for _ in $(seq 50); do grep -q '^ready ' "$lt/rl.out" && break; sleep 0.1; done
"$STK" profile -v -F 19 1 >/dev/null 2>"$lt/profile.err"
ladder_check ladder_profile "profile cpu sampling" "$(climbed "$(grep 'mechanism' "$lt/profile.err")")"
"$STK" offcputime -v 1 >/dev/null 2>"$lt/offcpu.err"
ladder_check ladder_offcputime "offcputime sched_switch" "$(climbed "$(grep 'mechanism' "$lt/offcpu.err")")"
hidden_sysfs() { unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec $1"; }
hidden_sysfs "'$STK' offcputime -v 1" >/dev/null 2>"$lt/offcpu_nobtf.err"
ladder_check ladder_offcputime_fallback "offcputime sched_switch" \
    "$(climbed "$(grep 'mechanism' "$lt/offcpu_nobtf.err")")" "$NOBTF"
"$STK" threadstate -v -n 1 >/dev/null 2>"$lt/ts.err"
ladder_check ladder_threadstate "threadstate thread sampling" "$(climbed "$(grep 'source' "$lt/ts.err")")"
hidden_sysfs "'$STK' threadstate -v -n 1" >/dev/null 2>"$lt/ts_nobtf.err"
ladder_check ladder_threadstate_fallback "threadstate thread sampling" \
    "$(climbed "$(grep 'source' "$lt/ts_nobtf.err")")" "$NOBTF"
"$STK" pmp -v -p "$rlpid" >/dev/null 2>"$lt/pmp.err"
ladder_check ladder_pmp "pmp thread snapshot" "$(climbed "$(grep 'pmp: mechanism' "$lt/pmp.err")")"
hidden_sysfs "'$STK' pmp -v -p $rlpid" >/dev/null 2>"$lt/pmp_nobtf.err"
ladder_check ladder_pmp_fallback "pmp thread snapshot" "$(climbed "$(grep 'pmp: mechanism' "$lt/pmp_nobtf.err")")" "$NOBTF"
"$STK" stackcount -v -D 1 t:sched:sched_switch >/dev/null 2>"$lt/sc_tp.err"
ladder_check ladder_stackcount_tracepoint "stackcount tracepoint" "$(climbed "$(grep 'attached with' "$lt/sc_tp.err")")"
"$STK" stackcount -v -D 1 t:syscalls:sys_enter_read >/dev/null 2>"$lt/sc_sys.err"
ladder_check ladder_stackcount_tracepoint_fallback "stackcount tracepoint" \
    "$(climbed "$(grep 'attached with' "$lt/sc_sys.err")")"
"$STK" stackcount -v -D 1 -p "$rlpid" "$W/readloop:rl_step_a" >/dev/null 2>"$lt/sc_u.err"
ladder_check ladder_stackcount_user "stackcount user function" "$(climbed "$(grep 'attached with' "$lt/sc_u.err")")"
"$STK" stackcount -v -D 1 vfs_read >/dev/null 2>"$lt/sc_k.err"
ladder_check ladder_stackcount_kernel "stackcount kernel function" \
    "$(climbed "$(grep -E 'attached with|on this kernel' "$lt/sc_k.err")")"
kill "$rlpid" 2>/dev/null; wait 2>/dev/null
rm -rf "$lt"
