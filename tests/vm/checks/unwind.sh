# Host check: whole caller chains of the no-frame-pointer workload in the guest
# (the default: --unwind cfi from 5.17, which has bpf_loop, else dwarf; with
# BTF hidden both run on the embedded BTF, and kernels before 5.15 / 5.17 take
# the task->stack and bounded-loop paths); the 49-level chain where the kernel
# walks it; dwarf asked for explicitly. Sourced by tests/vm/run.sh.
# BTF: visible only (its cases run in visible boots only: tests/vm/init.sh).
kver=${release%%-*}
kmajor=${kver%%.*} kminor=${kver#*.}
kminor=${kminor%%.*}
if [ "$kmajor" -gt 5 ] || { [ "$kmajor" -eq 5 ] && [ "$kminor" -ge 17 ]; }; then rung=cfi; else rung=dwarf; fi
unwind_chain() { # NAME CASE REGEX [RUNG]: the case ran, chose RUNG (the default's), and REGEX is among its stacks
    local out want=${4:-$rung}
    out=$(case_output "$log" "$2")
    expect_eq "$id/$1_rc" "$(case_rc "$log" "$2")" 0
    if ! printf '%s\n' "$out" | grep -q "; unwind $want"; then
        fail "$id/$1_$want" "$(printf '%s' "$out" | grep -m1 'mechanism\|attached\|Error\|error\|unwind' | head -c 300)"; return 1
    fi
    pass "$id/$1_$want"
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
unwind_chain unwind_dwarf_profile kunwind_dwarf_profile \
    '^nofp_static;.*main;chain;stage_one;stage_two;stage_three;hot_leaf [0-9]+$' dwarf && unw="${unw}d" || unw="${unw}-"
if [ "$rung" = cfi ]; then
    unwind_chain unwind_deep kunwind_deep \
        '^deep_static;.*main;level_01;level_02;.*;level_48;level_49;leaf [0-9]+$' && unw="${unw}D" || unw="${unw}-"
fi
cell "unwind=$rung:$unw"
