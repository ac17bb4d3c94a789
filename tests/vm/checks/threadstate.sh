# Host check: threadstate's source (task_iter where the kernel's BTF is
# visible, tracepoint_state where it is hidden; both fallbacks forced), the
# spinner RUN, the sleeper in nanosleep and the pipe reader in read (syscall
# numbers differ per arch: x86_64 read is 0, arm64's 63; the iterator decodes
# them from the saved registers). Sourced by tests/vm/run.sh.
if [ "$btf" = visible ]; then ts_want=task_iter; else ts_want=tracepoint_state; fi
ts_cell=""
for ts_case in threadstate threadstate_tracepoint_state threadstate_proc; do
    ts_out=$(case_output "$log" "$ts_case")
    ts_src=${ts_case#threadstate_}
    [ "$ts_src" = threadstate ] && ts_src=$ts_want
    expect_eq "$id/${ts_case}_rc" "$(case_rc "$log" "$ts_case")" 0
    ts_used=$(printf '%s\n' "$ts_out" | sed -n 's/^threadstate: source \([a-z_]*\).*/\1/p')
    expect_eq "$id/${ts_case}_source" "$ts_used" "$ts_src"
    # Table rows: AVG_THREADS COMM STATE SYSCALL
    ts_spin=$(printf '%s\n' "$ts_out" | awk '$2 == "spin" && $3 == "RUN" { s += $1 } END { print s + 0 }')
    ts_sleep=$(printf '%s\n' "$ts_out" | awk '$2 == "sleeper" && $3 == "SLEEP" && $4 ~ /nanosleep$/ { s += $1 } END { print s + 0 }')
    ts_read=$(printf '%s\n' "$ts_out" | awk '$2 == "piperead" && $3 == "SLEEP" && $4 == "read" { s += $1 } END { print s + 0 }')
    if awk -v a="$ts_spin" -v b="$ts_sleep" -v c="$ts_read" 'BEGIN { exit !(a >= 0.5 && b >= 0.9 && c >= 0.9) }'; then
        pass "$id/${ts_case}_states"; ts_cell="$ts_cell,$ts_used=ok"
    else
        fail "$id/${ts_case}_states" "spin RUN $ts_spin, sleeper in nanosleep $ts_sleep, piperead in read $ts_read: $(printf '%s' "$ts_out" | head -c 600)"
        ts_cell="$ts_cell,${ts_used:-none}=FAIL"
    fi
done
cell "threadstate=${ts_cell#,}"
