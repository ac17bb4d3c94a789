# Host check: what `stk info` reported in the guest, against the kernel's own
# config (the independent witness of what exists). Sourced by tests/vm/run.sh.
info=$(case_output "$log" info)
expect_eq "$id/info_rc" "$(case_rc "$log" info)" 0
# Hidden: the guest's stk embeds this kernel's BTF (checks/btf.sh checks the entry).
if [ "$btf" = visible ]; then want_btf=sysfs; else want_btf=embedded; fi
expect_eq "$id/btf_source" "$(field_of "$info" btf)" "$want_btf"
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
    expect_eq "$id/threadstate_mech" "$(field_of "$info" 'threadstate thread sampling')" task_iter
else
    expect_eq "$id/fentry_hidden" "$(field_of "$info" fentry)" no
    expect_eq "$id/offcputime_mech" "$(field_of "$info" 'offcputime sched_switch')" raw_tp
    expect_eq "$id/threadstate_mech" "$(field_of "$info" 'threadstate thread sampling')" tracepoint_state
fi
cell "kernel-function=$(field_of "$info" 'stackcount kernel function')"
cell "sched_switch=$(field_of "$info" 'offcputime sched_switch')"
cell "threads=$(field_of "$info" 'threadstate thread sampling')"
cell "fentry=$(field_of "$info" fentry) kprobe=$(field_of "$info" kprobe)"
# uprobe.multi came in 6.6: the user-function ladder starts there where the kernel has it.
rel_major=${release%%.*}; rel_minor=${release#*.}; rel_minor=${rel_minor%%.*}
if [ "$rel_major" -gt 6 ] || { [ "$rel_major" -eq 6 ] && [ "$rel_minor" -ge 6 ]; }; then um=yes; else um=no; fi
expect_eq "$id/uprobe_multi" "$(field_of "$info" uprobe.multi)" "$um"
expect_eq "$id/user_function_mech" "$(field_of "$info" 'stackcount user function')" \
    "$([ $um = yes ] && echo uprobe.multi || echo uprobe)"
