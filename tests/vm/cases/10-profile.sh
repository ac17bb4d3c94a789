# Guest case: profile a static workload with a known stack.
# BTF: visible only. What it checks does not change with BTF hidden; the programs it loads
# load with the embedded BTF in the hidden boot's other cases (offcputime, record, stackcount).
/burn_static 60 > /tmp/burn.out &
pid=$!
sleep 1
echo "@@CASE profile"
/stk profile -p "$pid" -f 3 2>&1
echo "@@RC $?"
kill "$pid"
