# Guest case: the default unwinding (--unwind cfi from 5.17, else dwarf) on code without frame pointers
# (tests/workloads/nofp.c, static glibc): a CPU chain for profile, threads in
# nanosleep and pthread_cond_timedwait for offcputime, and a uprobe at a
# function's entry for stackcount, each with its whole caller chain.
# BTF: visible only. What it checks does not change with BTF hidden; the programs it loads
# load with the embedded BTF in the hidden boot's other cases (offcputime, record, stackcount).
/nofp_static all 600 > /tmp/nofp.out &   # killed below; a loaded TCG guest takes 20-30 s to load each cfi program
sleep 0.5
npid=$(sed -n 's/^ready //p' /tmp/nofp.out)
echo "@@CASE unwind_profile"
/stk profile -U -v -p "$npid" -f 2 2>&1
echo "@@RC $?"
echo "@@CASE unwind_offcputime"
/stk offcputime -v -p "$npid" -f 2 2>&1
echo "@@RC $?"
echo "@@CASE unwind_uprobe"
/stk stackcount -U -v -f -p "$npid" -D 2 /nofp_static:stage_two 2>&1
echo "@@RC $?"
kill "$npid"
