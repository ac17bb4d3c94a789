# Host check: pmp in the guest. The sleepable iterator (task_iter_copy) where
# the kernel has it (5.18+) and its own BTF is visible, else /proc; each of
# the workload's eight threads with its whole chain, the spinner's taken as it
# ran. Sourced by tests/vm/run.sh.
pmp_major=${release%%.*} pmp_minor=${release#*.}
pmp_minor=${pmp_minor%%.*}
if [ "$btf" = visible ] && { [ "$pmp_major" -gt 5 ] || { [ "$pmp_major" -eq 5 ] && [ "$pmp_minor" -ge 18 ]; }; }; then
    pmp_want=task_iter_copy
else
    pmp_want=proc
fi
expect_eq "$id/pmp_info_mech" "$(field_of "$(case_output "$log" info)" 'pmp thread snapshot')" "$pmp_want"
pmp_cell=""
for pmp_case in pmp pmp_proc; do
    pmp_out=$(case_output "$log" "$pmp_case")
    pmp_mech=$(printf '%s\n' "$pmp_out" | sed -n 's/^pmp: mechanism \([a-z_]*\).*/\1/p')
    expect_eq "$id/${pmp_case}_rc" "$(case_rc "$log" "$pmp_case")" 0
    expect_eq "$id/${pmp_case}_mechanism" "$pmp_mech" "$([ $pmp_case = pmp ] && echo "$pmp_want" || echo proc)"
    pmp_missing=""
    for pmp_chain in read_stage,pipe_reader cond_stage,cond_sleeper nap_stage,napper epoll_stage,epoller \
                     accept_stage,acceptor lock_stage,locker spin_leaf,spin_stage,spinner; do
        printf '%s\n' "$pmp_out" | grep -Eq "^ *1 ([^ ]*,)?$pmp_chain,start_thread,((__)?clone3?|thread_start)\$" ||
            pmp_missing="$pmp_missing $pmp_chain"
    done
    printf '%s\n' "$pmp_out" | grep -Eq '^ *1 ([^ ]*,)?main_wait,main,.*_start$' || pmp_missing="$pmp_missing main_wait"
    pmp_roots=$(printf '%s\n' "$pmp_out" | grep -c '^pmp: [0-9]*/[0-9]* .*outermost frame')
    if [ -z "$pmp_missing" ] && [ "$pmp_roots" -eq 8 ]; then
        pass "$id/${pmp_case}_chains"; pmp_cell="$pmp_cell,${pmp_mech:-none}=ok"
    else
        fail "$id/${pmp_case}_chains" "missing:${pmp_missing:- none}, $pmp_roots of 8 reached a root: $(printf '%s' "$pmp_out" | grep -v '^pmp: [0-9]' | head -c 900)"
        pmp_cell="$pmp_cell,${pmp_mech:-none}=FAIL"
    fi
done
cell "pmp=${pmp_cell#,}"
