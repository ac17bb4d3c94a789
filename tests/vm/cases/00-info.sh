# Guest case: what stk detects on this kernel (checked against its config on the host).
echo "@@CASE info"
/stk info 2>&1
echo "@@RC $?"
