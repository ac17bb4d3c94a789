# Host check: interpreted frames in the guest's stacks (cases/47-python.sh):
# the fake interpreter's plain thread reads run;py_root;py_mid;py_leaf, its
# eval loop's frame replaced, in profile (the kernel walk from 5.17, else the
# copy) and in pmp (user space: where registers read from /proc leave the
# native chain short of the eval loop, its frames follow the chain). Sourced
# by tests/vm/run.sh.
# BTF: visible only (its cases run in visible boots only: tests/vm/init.sh).
py=""
for c in "python_profile:p:^plain;.*;run;py_root;py_mid;py_leaf[; ]" "python_pmp:m:py_leaf,py_mid,py_root(,|$)"; do
    name=${c%%:*} rest=${c#*:}
    letter=${rest%%:*} want=${rest#*:}
    out=$(case_output "$log" "$name")
    expect_eq "$id/${name}_rc" "$(case_rc "$log" "$name")" 0
    if printf '%s\n' "$out" | grep -qE "$want"; then
        pass "$id/${name}_frames"; py="$py$letter"
    else
        fail "$id/${name}_frames" "$(printf '%s' "$out" | head -5 | head -c 600)"; py="$py-"
    fi
done
cell "python:$py"
