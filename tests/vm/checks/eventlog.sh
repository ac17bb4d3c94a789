# Host check: recordings in the guest (tests/vm/cases/50-eventlog.sh): events
# recorded and none lost, stk report printing what the capture printed, the
# sleeps of the phases and of each request in the recording with both kinds
# of span, a profile recording of the burning phases. Sourced by tests/vm/run.sh.
# BTF: visible only (its cases run in visible boots only: tests/vm/init.sh).
ev=""
out=$(case_output "$log" eventlog_offcpu)
expect_eq "$id/eventlog_offcpu_rc" "$(case_rc "$log" eventlog_offcpu)" 0
expect_contains "$id/eventlog_offcpu_recorded" "$out" "events recorded, none lost"
rep=$(case_output "$log" eventlog_offcpu_report)
expect_contains "$id/eventlog_offcpu_report_equal" "$rep" "report equals capture"
folded=$(case_output "$log" eventlog_offcpu_folded)
if printf '%s\n' "$folded" | grep -qE '^phases_static;.*main;phase_b_sleep;.*do_nanosleep;.* [0-9]+$'; then
    pass "$id/eventlog_offcpu_phase"; ev="${ev}o"
else fail "$id/eventlog_offcpu_phase" "$(printf '%s' "$folded" | head -c 600)"; ev="${ev}-"; fi
# the span rows: one per request per kind of span, each ~10 ms long
spans=$(printf '%s\n' "$rep" | awk '$1 == "phases_static" { print $2 }')
[ -n "$spans" ] && [ "$spans" -gt 0 ] && pass "$id/eventlog_span_rows" && ev="${ev}s" ||
    { fail "$id/eventlog_span_rows" "$(printf '%s' "$rep" | head -c 400)"; ev="${ev}-"; }
if printf '%s\n' "$rep" | grep -qE '^phases_static;.*main;handle_request;do_query;query_wait;.*do_nanosleep;.* [0-9]+$'; then
    pass "$id/eventlog_span_filter"; ev="${ev}f"
else fail "$id/eventlog_span_filter" "$(printf '%s' "$rep" | head -c 600)"; ev="${ev}-"; fi
expect_eq "$id/eventlog_profile_rc" "$(case_rc "$log" eventlog_profile)" 0
expect_contains "$id/eventlog_profile_recorded" "$(case_output "$log" eventlog_profile)" "events recorded, none lost"
prep=$(case_output "$log" eventlog_profile_report)
expect_contains "$id/eventlog_profile_report_equal" "$prep" "report equals capture"
if printf '%s\n' "$prep" | grep -qE '^phases_static;.*main;phase_a_burn;spin_for [0-9]+$'; then
    pass "$id/eventlog_profile_phase"; ev="${ev}p"
else fail "$id/eventlog_profile_phase" "$(printf '%s' "$prep" | head -c 600)"; ev="${ev}-"; fi
cell "eventlog=$ev"
