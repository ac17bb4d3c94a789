# Guest case: pmp on threads blocked in known functions and one spinning
# (tests/workloads/pmp_threads.c, static glibc, no frame pointers), with the
# mechanism stk chooses and with /proc forced.
/pmp_threads_static blocked 120 > /tmp/pmp.out &
sleep 1
ppid=$(sed -n 's/^ready //p' /tmp/pmp.out)
for m in "" proc; do
    echo "@@CASE pmp${m:+_$m}"
    /stk pmp -U -v ${m:+--mechanism "$m"} -p "$ppid" 2>&1
    echo "@@RC $?"
done
kill "$ppid"
