# Guest case: stk record on tests/workloads/resources (static glibc, no frame
# pointers) doing all it does (8 MiB of memory, O_DIRECT on the NVMe disk,
# loopback TCP and UDP): cpu, offcpu, rss, block, write, syscall, iorq and
# state in one capture, one BPF object (50-resources.sh's resources_run, as
# stk resources runs there; with -o the folded output goes to its file, -v
# to the case's output); the capture's folded output, and stk report of its
# recording, which must print the same. --min-latency keeps the system
# calls to the slow ones: where the kernel cannot walk stacks (before 5.17)
# each call's stack is a copy, and all of them overflow the copies' buffer
# under TCG (their stacks then frame pointers', the workload's callers lost).
resources_run record all record -e cpu:99,offcpu,rss,block,write,syscall,iorq,state:2 --min-latency 200 \
    -o /tmp/rec.parquet -o /tmp/rec.folded
echo "@@CASE record_folded"
cat /tmp/rec.folded
echo "@@RC 0"
echo "@@CASE record_report"
/stk report /tmp/rec.parquet -f > /tmp/rec-report.folded 2>&1 && cmp /tmp/rec.folded /tmp/rec-report.folded &&
    echo "report equals capture"
/stk report /tmp/rec.parquet --event state -f 2>&1 | head -5
echo "@@RC $?"
# A kernel function with cpu in one capture (frame pointers: they verify fastest under TCG):
# /readloop_static's 200 reads each reach vfs_read once; refused in one line where this
# kernel cannot trace kernel functions (tests/vm/checks/stackcount_record.sh).
rm -f /tmp/reck.out /tmp/reck_rl.out /tmp/reck_go
/readloop_static 200 /tmp/reck_go > /tmp/reck_rl.out &
reck_rl=$!
for _ in $(seq 100); do grep -q '^ready' /tmp/reck_rl.out && break; sleep 0.05; done
/stk record -v --unwind fp -p "$reck_rl" -e cpu,p:vfs_read -f > /tmp/reck.out 2>&1 &
reck=$!
for _ in $(seq 400); do grep -q 'tracing .* ms after start' /tmp/reck.out && break
                        kill -0 "$reck" 2>/dev/null || break; sleep 0.05; done
touch /tmp/reck_go
for _ in $(seq 200); do grep -q '^done' /tmp/reck_rl.out && break; sleep 0.05; done
kill -INT "$reck" 2>/dev/null
wait "$reck"
reck_rc=$?
kill "$reck_rl"
echo "@@CASE record_kfunc"
cat /tmp/reck.out
echo "@@RC $reck_rc"
