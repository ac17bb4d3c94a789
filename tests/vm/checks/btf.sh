# Sourced by tests/vm/run.sh once per boot (log, id, btf, config, release and
# its helpers): the embedded BTF archive in the guest (tests/vm/cases/05-btf.sh).
btf_info=$(case_output "$log" info)
expect_contains "$id/btf_version" "$(case_output "$log" btf_version)" "embedded BTF: "
if ! case_output "$log" btf_version | grep -q '^embedded BTF: [1-9][0-9]* kernels\? '; then
    fail "$id/btf_archive_present" "stk in the VM has no embedded BTF: $(case_output "$log" btf_version | tail -1)"
fi
# The key the guest's os-release and kernel make, read here without stk.
btf_os_text=$(case_output "$log" btf_os_release)
os_id=$(printf '%s\n' "$btf_os_text" | sed -n 's/^ID=//p' | tr -d '"')
os_ver=$(printf '%s\n' "$btf_os_text" | sed -n 's/^VERSION_ID=//p' | tr -d '"')
key="$os_id/${os_ver:--}/$btf_arch/$release"
if [ "$btf" = visible ]; then
    expect_eq "$id/btf_source" "$(printf '%s\n' "$btf_info" | sed -n 's/^btf: \([a-z]*\) .*/\1/p')" sysfs
    cell "btf=sysfs"
else
    expect_contains "$id/btf_embedded" "$btf_info" \
        "btf: embedded $key (os-release ID, VERSION_ID, arch and kernel release match"
    # Attach targets need the kernel's own BTF: embedded types do not make these work.
    for f in fentry tp_btf task_iter; do
        expect_contains "$id/btf_embedded_no_$f" "$btf_info" "$f: no (needs the running kernel's own BTF"
    done
    st=$(case_output "$log" btf_state_raw_tp)
    expect_eq "$id/btf_state_raw_tp_rc" "$(case_rc "$log" btf_state_raw_tp)" 0
    expect_contains "$id/btf_state_raw_tp_used" "$st" "offcputime: mechanism raw_tp"
    expect_contains "$id/btf_state_raw_tp_btf" "$st" "; BTF embedded"
    if printf '%s\n' "$st" | grep -q '^sleeper;.*sleeper_thread;.*do_nanosleep;.* [0-9]*$' &&
       ! printf '%s\n' "$st" | grep -q '^spinner;'; then
        pass "$id/btf_state_raw_tp_frames"; state=ok
    else
        fail "$id/btf_state_raw_tp_frames" "$(printf '%s' "$st" | grep -v '^offcputime:' | head -c 300)"; state=FAIL
    fi
    nm=$(case_output "$log" btf_nomatch_state)
    expect_eq "$id/btf_nomatch_rc" "$(case_rc "$log" btf_nomatch_state)" 2
    expect_contains "$id/btf_nomatch_key" "$nm" "looked up stknomatch/1.0/$btf_arch/$release"
    expect_contains "$id/btf_nomatch_hint" "$nm" "pass --btf FILE"
    expect_eq "$id/btf_nomatch_one_line" "$(printf '%s\n' "$nm" | grep -c .)" 1
    nd=$(case_output "$log" btf_nomatch_default)
    expect_eq "$id/btf_nomatch_default_rc" "$(case_rc "$log" btf_nomatch_default)" 0
    expect_contains "$id/btf_nomatch_default_used" "$nd" "offcputime: mechanism raw_tp"
    expect_contains "$id/btf_nomatch_default_btf" "$nd" "; BTF none"
    nomatch=$([ "$(case_rc "$log" btf_nomatch_state)" = 2 ] && echo refused || echo FAIL)
    cell "btf=embedded(${os_id}/${os_ver:--}) state=$state nomatch=$nomatch"
fi
