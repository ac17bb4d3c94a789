# Guest case: stk record on tests/workloads/resources (static glibc, no frame
# pointers) doing all it does (8 MiB of memory, O_DIRECT on the NVMe disk,
# loopback TCP and UDP): cpu, offcpu, rss, block, write, syscall, iorq and
# state in one capture, one BPF object; the capture's own folded output, and
# stk report of its recording, which must print the same.
rm -f /tmp/res.out /tmp/rec.out
/resources_static all 8 /dev/nvme0n1 > /tmp/res.out 2>&1 &
for _ in $(seq 50); do rpid=$(sed -n 's/^ready //p' /tmp/res.out); [ -n "$rpid" ] && break; sleep 0.1; done
/stk record -v -p "$rpid" -e cpu:99,offcpu,rss,block,write,syscall,iorq,state:2 \
    -o /tmp/rec.parquet -o /tmp/rec.folded > /tmp/rec.out 2>&1 &
spid=$!
for _ in $(seq 900); do grep -q 'tracing .* ms after start' /tmp/rec.out && break
                        kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
kill -USR1 "$rpid"
for _ in $(seq 1200); do grep -q '^done' /tmp/res.out && break; sleep 0.1; done
sleep 1
stk_settle "$spid"
kill -INT "$spid" 2>/dev/null
wait "$spid"
rc=$?
kill "$rpid" 2>/dev/null
echo "@@CASE record"
cat /tmp/rec.out
grep -q '^done' /tmp/res.out || echo "workload: $(cat /tmp/res.out)"
echo "@@RC $rc"
echo "@@CASE record_folded"
cat /tmp/rec.folded
echo "@@RC 0"
echo "@@CASE record_report"
/stk report /tmp/rec.parquet -f > /tmp/rec-report.folded 2>&1 && cmp /tmp/rec.folded /tmp/rec-report.folded &&
    echo "report equals capture"
/stk report /tmp/rec.parquet --event state -f 2>&1 | head -5
echo "@@RC $?"
