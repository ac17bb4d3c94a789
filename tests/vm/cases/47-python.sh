# Guest case: interpreter frames (tests/workloads/fake_python_static, CPython
# 3.11's shape): its plain thread's frames in place of its eval loop's, walked
# in the kernel where the kernel walks (cfi), else read by user space; and the
# hostile threads beside it, which must not stop stk.
# BTF: visible only. What it checks does not change with BTF hidden; the programs it loads
# load with the embedded BTF in the hidden boot's other cases (offcputime, record, stackcount).
/fake_python_static > /tmp/fake.out &
fpid=$!
sleep 0.5
echo "@@CASE python_profile"
/stk profile -v -p "$fpid" -f 2 2>&1
echo "@@RC $?"
echo "@@CASE python_pmp"
/stk pmp -p "$fpid" 2>&1
echo "@@RC $?"
kill "$fpid"
