# Guest case: profile a static workload with a known stack.
/burn_static 60 > /tmp/burn.out &
pid=$!
sleep 1
echo "@@CASE profile"
/stk profile -p "$pid" -f 3 2>&1
echo "@@RC $?"
kill "$pid"
