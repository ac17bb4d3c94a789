# Host check: stk record's kernel-function pattern in the guest
# (tests/vm/cases/55-record.sh; named to come after stackcount.sh, whose sc_have
# says which mechanisms this kernel has): beside cpu in one capture, each of
# /readloop_static's 200 reads reaching vfs_read once, under its own stack, with
# the mechanism stackcount chooses (stackcount.sh's sc_have, sc_within10); where
# no mechanism can trace kernel functions, stackcount's reason and exit 2.
# Sourced by tests/vm/run.sh.
reck=$(case_output "$log" record_kfunc)
reck_want=none
for m in fentry kprobe.multi kprobe kprobe_legacy; do
    if sc_have "$m"; then reck_want=$m; break; fi
done
if [ "$reck_want" = none ]; then
    expect_eq "$id/record_kfunc_refused_rc" "$(case_rc "$log" record_kfunc)" 2
    expect_contains "$id/record_kfunc_refused" "$reck" "stk record: p:vfs_read: no mechanism can trace kernel functions on this kernel"
else
    expect_eq "$id/record_kfunc_rc" "$(case_rc "$log" record_kfunc)" 0
    expect_eq "$id/record_kfunc_mechanism" \
        "$(printf '%s\n' "$reck" | sed -n 's/^record: p:vfs_read: 1 functions, mechanism \([a-z_.]*\).*/\1/p')" "$reck_want"
    reck_reads=$(printf '%s\n' "$reck" | awk '/^p:vfs_read;readloop_static;.*;rl_read_path;.*;vfs_read [0-9]+$/ { s += $NF } END { print s + 0 }')
    if sc_within10 "$reck_reads" 200; then pass "$id/record_kfunc_reads"
    else fail "$id/record_kfunc_reads" "$reck_reads reads under rl_read_path, want 200 +- 10%"; fi
    # cpu in the same capture (200 reads are too short to be sure of a sample)
    expect_contains "$id/record_kfunc_with_cpu" "$reck" "record: cpu: mechanism perf_event"
fi
cell "record_kfunc=$reck_want"
