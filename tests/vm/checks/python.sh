# Host check: interpreted frames in the guest's stacks (cases/47-python.sh):
# the fake interpreter's plain thread reads run;py_root;py_mid;py_leaf, its
# eval loop's frame replaced, in profile (the kernel walk from 5.17, else the
# copy) and in pmp (user space). Sourced by tests/vm/run.sh.
py=""
out=$(case_output "$log" python_profile)
expect_eq "$id/python_profile_rc" "$(case_rc "$log" python_profile)" 0
if printf '%s\n' "$out" | grep -qE '^plain;.*;run;py_root;py_mid;py_leaf[; ]'; then
    pass "$id/python_profile_frames"; py="${py}p"
else
    fail "$id/python_profile_frames" "$(printf '%s' "$out" | grep '^plain' | head -3 | head -c 600)"; py="${py}-"
fi
out=$(case_output "$log" python_pmp)
expect_eq "$id/python_pmp_rc" "$(case_rc "$log" python_pmp)" 0
if printf '%s\n' "$out" | grep -q 'py_leaf,py_mid,py_root,run,'; then
    pass "$id/python_pmp_frames"; py="${py}m"
else
    fail "$id/python_pmp_frames" "$(printf '%s' "$out" | head -5 | head -c 600)"; py="${py}-"
fi
cell "python:$py"
