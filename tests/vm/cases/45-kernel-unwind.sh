# Guest case: the kernel unwinder where the kernel has it (--unwind cfi, the
# default from 5.17): 49 levels of 700-byte frames without frame pointers,
# deeper than a stack copy reaches; and the copy (--unwind dwarf) asked for
# explicitly, so both rungs run on every kernel that has them.
# BTF: visible only. What it checks does not change with BTF hidden; the programs it loads
# load with the embedded BTF in the hidden boot's other cases (offcputime, record, stackcount).
/deep_static spin 120 > /tmp/deep.out &
sleep 0.5
dpid=$(sed -n 's/^ready //p' /tmp/deep.out)
echo "@@CASE kunwind_deep"
/stk profile -U -v -p "$dpid" -f 2 2>&1
echo "@@RC $?"
kill "$dpid"
/nofp_static chain 120 > /tmp/nofp.out &
sleep 0.5
npid=$(sed -n 's/^ready //p' /tmp/nofp.out)
echo "@@CASE kunwind_dwarf_profile"
/stk profile --unwind dwarf -U -v -p "$npid" -f 2 2>&1
echo "@@RC $?"
kill "$npid"
