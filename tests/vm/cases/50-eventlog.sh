# Guest case: recording events (the ring buffer, 5.8+: every kernel of the
# matrix) on phases_static (no frame pointers, USDT around each request): an
# offcputime recording with a --span function and a USDT pair, a profile one,
# each printed again by stk report and compared with what the capture
# printed; with BTF hidden the ring buffer's helper is found in the embedded
# BTF. The workload's phases start once stk is tracing (its GO file).
# traced APPLET OUT ARGS...: runs stk APPLET -v ARGS in the background,
# touches the GO file once it is tracing, waits; its output in OUT, RC its status.
# BTF: visible only. What it checks does not change with BTF hidden; the programs it loads
# load with the embedded BTF in the hidden boot's other cases (offcputime, record, stackcount).
traced() {
    local go=$1 out=$2 i=0 sp
    shift 2
    /stk "$@" > "$out" 2>&1 &
    sp=$!
    while [ $i -lt 900 ] && ! grep -q 'tracing .* after start' "$out"; do sleep 0.1; i=$((i + 1)); done
    touch "$go"
    wait "$sp"
    RC=$?
}
/phases_static /tmp/ev.go 0.5 6 > /tmp/phases.out &
sleep 0.3
ppid=$(sed -n 's/^ready //p' /tmp/phases.out)
traced /tmp/ev.go /tmp/off.out offcputime -v -p "$ppid" --span /phases_static:handle_request:arg0 \
    --span u:/phases_static:phases:request_start,request_end:arg0 \
    -o /tmp/off.parquet -o /tmp/off.folded -o /tmp/off.trace.json 8
echo "@@CASE eventlog_offcpu"
cat /tmp/off.out
echo "@@RC $RC"
echo "@@CASE eventlog_offcpu_report"
/stk report /tmp/off.parquet -o /tmp/off-report.folded 2>&1 && cmp /tmp/off.folded /tmp/off-report.folded && echo "report equals capture"
/stk report /tmp/off.parquet --event span -f 2>&1
/stk report /tmp/off.parquet --span handle_request -f 2>&1
echo "@@RC $?"
echo "@@CASE eventlog_offcpu_folded"
cat /tmp/off.folded
echo "@@RC 0"
kill "$ppid" 2>/dev/null
/phases_static /tmp/ev2.go 1.5 1 > /tmp/phases2.out &
sleep 0.3
ppid=$(sed -n 's/^ready //p' /tmp/phases2.out)
traced /tmp/ev2.go /tmp/prof.out profile -v -F 199 -p "$ppid" -o /tmp/prof.parquet -o /tmp/prof.folded 3
echo "@@CASE eventlog_profile"
cat /tmp/prof.out
echo "@@RC $RC"
echo "@@CASE eventlog_profile_report"
/stk report /tmp/prof.parquet -o /tmp/prof-report.folded 2>&1 && cmp /tmp/prof.folded /tmp/prof-report.folded && echo "report equals capture"
cat /tmp/prof.folded
echo "@@RC $?"
kill "$ppid" 2>/dev/null
