# Host check: stk record's kernel-function pattern in the guest
# (tests/vm/cases/55-record.sh; named to come after stackcount.sh, whose sc_have
# says which mechanisms this kernel has): beside cpu in one capture, each of
# /readloop_static's 200 reads reaching vfs_read once, under its own stack, with
# the mechanism stackcount chooses; where no mechanism can trace kernel functions,
# stackcount's reason in one line and exit 2. Sourced by tests/vm/run.sh.
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
    expect_eq "$id/record_kfunc_reads" "$reck_reads" 200
    rec_cpu=$(printf '%s\n' "$reck" | grep -c '^samples;')
    [ "$rec_cpu" -ge 1 ] && pass "$id/record_kfunc_with_cpu" || fail "$id/record_kfunc_with_cpu" "no cpu sample"
fi
cell "record_kfunc=$reck_want"
