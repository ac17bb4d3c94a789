# Host check: the profiled workload's known stack. Sourced by tests/vm/run.sh.
# BTF: visible only (its cases run in visible boots only: tests/vm/init.sh).
prof=$(case_output "$log" profile)
expect_eq "$id/profile_rc" "$(case_rc "$log" profile)" 0
if printf '%s\n' "$prof" | grep -q 'main;known_mid;known_leaf [0-9]*$'; then
    pass "$id/profile_frames"; cell "profile=ok"
else
    fail "$id/profile_frames" "$(printf '%s' "$prof" | head -c 300)"; cell "profile=FAIL"
fi
