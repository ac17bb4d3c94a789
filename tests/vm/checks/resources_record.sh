# Host check: stk record in the guest (tests/vm/cases/55-record.sh; named to come after
# resources.sh, whose helpers and expectations of this kernel it uses): every kind
# recorded in one capture, each resources kind's bytes per known function within
# 10%, the write's system calls and block requests under its stack, the
# workload's threads sampled, the mechanism of each kind given this kernel, and
# stk report of the recording equal to the capture. Sourced by tests/vm/run.sh.
rec=$(case_output "$log" record)
recf=$(case_output "$log" record_folded)
expect_eq "$id/record_rc" "$(case_rc "$log" record)" 0
expect_contains "$id/record_none_lost" "$rec" "events recorded, none lost"
res_within "$id/record_rss" "$(res_sum "$recf" rss ';touch_pages;')" $MiB8 record
# A write whose stack copy found the buffer full (its reader short of CPU under TCG) is counted
# with frame pointers, which this workload lacks: its bytes count here only when stk said so.
rec_write=$(res_sum "$recf" write ';direct_write_chunk;')
rec_unsent=$(printf '%s\n' "$rec" | sed -n 's/.* \([0-9]*\) could not be sent (counted by frame pointers).*/\1/p' | head -1)
[ "${rec_unsent:-0}" -ge 1 ] &&
    rec_write=$(( rec_write + $(res_sum "$recf" write '^write;resources_stati;\[unknown\];.*\[sys_pwrite64\] ') ))
res_within "$id/record_write" "$rec_write" $MiB8 record
res_within "$id/record_block_write" "$(res_sum "$recf" block ';direct_write_chunk;.*\[block write\]')" $MiB8 record
rec_calls=$(printf '%s\n' "$recf" | grep -c '^syscall;.*;direct_write_chunk;[^ ]*\[sys_pwrite64\] ')
rec_requests=$(printf '%s\n' "$recf" | grep -c '^iorq;.*;direct_write_chunk;.*\[block write\] ')
if [ "$rec_calls" -ge 1 ] && [ "$rec_requests" -ge 1 ]; then pass "$id/record_syscall_iorq"
else fail "$id/record_syscall_iorq" "$rec_calls pwrite64 stacks, $rec_requests write request stacks"; fi
rec_state=$(printf '%s\n' "$recf" | grep -c '^state;resources_st')
[ "$rec_state" -ge 1 ] && pass "$id/record_state" || fail "$id/record_state" "no state row of the workload"
rec_cpu=$(printf '%s\n' "$recf" | grep -c '^samples;')
rec_off=$(printf '%s\n' "$recf" | grep -c '^offcpu;')
if [ "$rec_cpu" -ge 1 ] && [ "$rec_off" -ge 1 ]; then pass "$id/record_cpu_offcpu"
else fail "$id/record_cpu_offcpu" "$rec_cpu cpu and $rec_off offcpu stacks"; fi
expect_contains "$id/record_report_equals" "$(case_output "$log" record_report)" "report equals capture"
# The mechanisms, as the applets alone choose them (resources.sh's expectations; the task
# iterator attaches by the kernel's own BTF, else /proc).
rec_mech() { printf '%s\n' "$rec" | sed -n "s/^record: $1: \(mechanism\|source\) \([a-z_]*\).*/\2/p" | head -1; }
if [ "$btf" = visible ]; then want_off=tp_btf want_state=task_iter; else want_off=raw_tp want_state=proc; fi
expect_eq "$id/record_mech_rss" "$(rec_mech rss)" "$want_rss"
expect_eq "$id/record_mech_block" "$(rec_mech 'block, iorq')" "$want_block"
expect_eq "$id/record_mech_offcpu" "$(rec_mech offcpu)" "$want_off"
expect_eq "$id/record_mech_state" "$(rec_mech state)" "$want_state"
cell "record=$([ "$(case_rc "$log" record)" = 0 ] && echo ok || echo FAIL)"
