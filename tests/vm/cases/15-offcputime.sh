# Guest case: offcputime on a sleeper with a known stack, with the mechanism stk
# chooses and with the fallbacks old kernels need, forced while this kernel also
# has them. 2400 naps of 50 ms (120 s, killed after): the sleeper keeps napping through all
# four captures even when TCG makes attaching slow (kprobes on 7.x: ~3.5 s).
/offcpu_static 300 150 2400 > /tmp/offcpu.out &
sleep 0.5
opid=$(sed -n 's/^ready //p' /tmp/offcpu.out)
# Only the sleeper thread: the spinner's preemptions at ever-changing user IPs
# fill the stack map with unique stacks, and a hash collision with one of them
# would drop every sample of the sleeper's single stack (seen on 5.10).
for t in /proc/"$opid"/task/*; do
    [ "$(cat "$t/comm")" = sleeper ] && stid=${t##*/}
done
echo "@@CASE offcputime"
/stk offcputime -v -t "$stid" -f 3 2>&1
echo "@@RC $?"
# one switch-out in 2 taken (--sample: a per-CPU count down, a random gap): the same stack
echo "@@CASE offcputime_sampled"
/stk offcputime --sample 2 -v -t "$stid" -f 2 2>&1
echo "@@RC $?"
for m in tracepoint kprobe; do
    echo "@@CASE offcputime_$m"
    /stk offcputime --mechanism "$m" -v -t "$stid" -f 2 2>&1
    echo "@@RC $?"
done
kill "$opid"
