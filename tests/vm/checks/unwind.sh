# Host check: whole caller chains of the no-frame-pointer workload in the guest
# (--unwind dwarf, the default; with BTF hidden it runs on the embedded BTF,
# and kernels before 5.15 / 5.17 take the task->stack and bounded-loop paths).
# Sourced by tests/vm/run.sh.
unwind_chain() { # NAME CASE REGEX: the case ran, chose dwarf, and REGEX is among its stacks
    local out
    out=$(case_output "$log" "$2")
    expect_eq "$id/$1_rc" "$(case_rc "$log" "$2")" 0
    if ! printf '%s\n' "$out" | grep -q '; unwind dwarf'; then
        fail "$id/$1_dwarf" "$(printf '%s' "$out" | grep -m1 'mechanism\|attached\|Error\|error' | head -c 300)"; return 1
    fi
    pass "$id/$1_dwarf"
    if printf '%s\n' "$out" | grep -qE "$3"; then pass "$id/$1_chain"; return 0; fi
    fail "$id/$1_chain" "$(printf '%s' "$out" | grep '^nofp' | sort -t' ' -k2 -n | tail -3 | head -c 600)"
    return 1
}
unw=""
unwind_chain unwind_profile unwind_profile \
    '^nofp_static;.*start_thread;chain;stage_one;stage_two;stage_three;hot_leaf [0-9]+$' && unw="${unw}p" || unw="${unw}-"
unwind_chain unwind_offcpu_nanosleep unwind_offcputime \
    '^nofp_static;.*start_thread;sleeper;sleep_stage;[^ ]*nanosleep;.*do_nanosleep;.* [0-9]+$' && unw="${unw}n" || unw="${unw}-"
unwind_chain unwind_offcpu_condwait unwind_offcputime \
    '^nofp_static;.*start_thread;cond_waiter;wait_stage;[^ ]*pthread_cond_timedwait;.*futex.* [0-9]+$' && unw="${unw}c" || unw="${unw}-"
unwind_chain unwind_uprobe_entry unwind_uprobe \
    '^nofp_static;.*start_thread;chain;stage_one;stage_two [0-9]+$' && unw="${unw}u" || unw="${unw}-"
cell "unwind=$unw"
