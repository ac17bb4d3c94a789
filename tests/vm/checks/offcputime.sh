# Host check: offcputime's sleeper stack with the chosen mechanism and with the
# forced fallbacks (tracepoint always; kprobe on finish_task_switch where
# kprobes exist: with BTF hidden, its CO-RE reads use the embedded BTF).
# Sourced by tests/vm/run.sh.
sleeper_re="^sleeper\( ([0-9]*/[0-9]*)\)\{0,1\};${u_thread_base}start;sleeper_thread;.*do_nanosleep;.* [0-9]*\$"
# sleeper_frames NAME OUTPUT: the sleeper's stack is there, with no frame
# repeated back to back (5.10's classic tracepoint reports __schedule twice).
sleeper_frames() {
    local stacks
    stacks=$(printf '%s\n' "$2" | grep "$sleeper_re")
    if [ -z "$stacks" ]; then
        fail "$1" "$(printf '%s' "$2" | grep -v '^offcputime:' | head -c 600)"; return 1
    elif printf '%s\n' "$stacks" | grep -qE ';([^; ]+);\1[; ]'; then
        fail "$1" "repeated frame: $(printf '%s' "$stacks" | head -c 600)"; return 1
    fi
    pass "$1"
}
offcpu=$(case_output "$log" offcputime)
expect_eq "$id/offcputime_rc" "$(case_rc "$log" offcputime)" 0
sleeper_frames "$id/offcputime_frames" "$offcpu"
offmech=$(printf '%s\n' "$offcpu" | sed -n 's/^offcputime: mechanism \([a-z_]*\).*/\1/p')
if [ "$btf" = visible ]; then want=tp_btf; else want=raw_tp; fi
expect_eq "$id/offcputime_used" "$offmech" "$want"
sampled=$(case_output "$log" offcputime_sampled)
expect_eq "$id/offcputime_sampled_rc" "$(case_rc "$log" offcputime_sampled)" 0
if sleeper_frames "$id/offcputime_sampled_frames" "$sampled"; then forced=",sampled=ok"; else forced=",sampled=FAIL"; fi
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
    if sleeper_frames "$id/offcputime_${m}_frames" "$out"; then forced="$forced,$m=ok"
    else forced="$forced,$m=FAIL"; fi
done
cell "offcputime=${offmech:-FAIL}$forced"
