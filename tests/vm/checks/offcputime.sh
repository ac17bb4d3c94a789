# Host check: offcputime's sleeper stack with the chosen mechanism and with the
# forced fallbacks (tracepoint always; kprobe on finish_task_switch where
# kprobes exist: with BTF hidden, its CO-RE reads use the embedded BTF).
# Sourced by tests/vm/run.sh.
sleeper_re='^sleeper\( ([0-9]*/[0-9]*)\)\{0,1\};start;sleeper_thread;.*do_nanosleep;.* [0-9]*$'
offcpu=$(case_output "$log" offcputime)
expect_eq "$id/offcputime_rc" "$(case_rc "$log" offcputime)" 0
if printf '%s\n' "$offcpu" | grep -q "$sleeper_re"; then pass "$id/offcputime_frames"
else fail "$id/offcputime_frames" "$(printf '%s' "$offcpu" | grep -v '^offcputime:' | head -c 600)"; fi
offmech=$(printf '%s\n' "$offcpu" | sed -n 's/^offcputime: mechanism \([a-z_]*\).*/\1/p')
if [ "$btf" = visible ]; then want=tp_btf; else want=raw_tp; fi
expect_eq "$id/offcputime_used" "$offmech" "$want"
forced=""
for m in tracepoint kprobe; do
    out=$(case_output "$log" "offcputime_$m")
    # The kprobe variant reads task fields with CO-RE: it needs kprobes and BTF
    # (the kernel's, or with BTF hidden the one embedded in the guest's stk).
    if [ "$m" = kprobe ] && [ "$(cfg "$config" KPROBES)" != y ]; then
        expect_eq "$id/offcputime_${m}_refused" "$(case_rc "$log" "offcputime_$m")" 2
        forced="$forced,$m=refused"
        continue
    fi
    expect_eq "$id/offcputime_${m}_rc" "$(case_rc "$log" "offcputime_$m")" 0
    used=$(printf '%s\n' "$out" | sed -n 's/^offcputime: mechanism \([a-z_]*\).*/\1/p')
    expect_eq "$id/offcputime_${m}_used" "$used" "$m"
    if printf '%s\n' "$out" | grep -q "$sleeper_re"; then
        pass "$id/offcputime_${m}_frames"; forced="$forced,$m=ok"
    else
        fail "$id/offcputime_${m}_frames" "$(printf '%s' "$out" | grep -v '^offcputime:' | head -c 600)"
        forced="$forced,$m=FAIL"
    fi
done
cell "offcputime=${offmech:-FAIL}$forced"
