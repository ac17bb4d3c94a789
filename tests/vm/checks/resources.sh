# Host check: stk resources in the guest (tests/vm/cases/50-resources.sh): bytes per
# known function within 10% for every kind, the mechanism each source chose given
# the tracepoints this kernel has, the forced classic tracepoints, and faults by
# the x86-only tracepoint refused in one line elsewhere. Sourced by tests/vm/run.sh.
res_events=$(case_output "$log" resources_events)
MiB8=8388608
# res_sum OUTPUT KIND REGEX: the total of folded lines of KIND matching REGEX (KIND "": a
# capture of one kind, whose lines do not start with it)
res_sum() { printf '%s\n' "$1" | kind="$2" re="$3" awk 'BEGIN { k = ENVIRON["kind"]; k = k == "" ? "" : k ";"; re = ENVIRON["re"] }
    index($0, k) == 1 && $0 ~ re && $NF ~ /^[0-9]+$/ { s += $NF } END { printf "%.0f\n", s }'; }
res_within() { # NAME GOT WANT [CASE]: a failure says what the case's workload said of itself
    local said
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 10) }'; then pass "$1"
    else
        said=$(case_output "$log" "${4:-resources}" | grep '^workload:' | grep -v 'udp received' | tr '\n' ' ')
        fail "$1" "got $2, want $3 +- 10%${said:+ ($said)}"
    fi
}
res_mech() { printf '%s\n' "$1" | sed -n "s/^resources: $2: mechanism \([a-z_]*\).*/\1/p" | head -1; }
res=$(case_output "$log" resources)
expect_eq "$id/resources_rc" "$(case_rc "$log" resources)" 0
res_within "$id/resources_rss" "$(res_sum "$res" rss ';touch_pages;')" $MiB8
res_within "$id/resources_write" "$(res_sum "$res" write ';direct_write_chunk;')" $MiB8
res_within "$id/resources_read" "$(res_sum "$res" read ';direct_read_chunk;')" $MiB8
res_within "$id/resources_send_tcp" "$(res_sum "$res" send ';tcp_send_chunk;')" $MiB8
res_within "$id/resources_recv_tcp" "$(res_sum "$res" recv ';tcp_recv_chunk;')" $MiB8
res_within "$id/resources_send_udp" "$(res_sum "$res" send ';udp_send_datagram;')" 1024000
# what arrived: loopback drops datagrams a busy guest's receiver had no room for
res_udp_got=$(printf '%s\n' "$res" | sed -n 's/^workload: udp received //p' | head -1)
res_within "$id/resources_recv_udp" "$(res_sum "$res" recv ';udp_recv_datagram;')" "${res_udp_got:-the workload did not say}"
if printf '%s\n' "$res_events" | grep -q '^disk '; then
    res_within "$id/resources_block_write" "$(res_sum "$res" block ';direct_write_chunk;.*\[block write\]')" $MiB8
    res_within "$id/resources_block_read" "$(res_sum "$res" block ';direct_read_chunk;.*\[block read\]')" $MiB8
    bt=$(res_sum "$res" block_time ';direct_write_chunk;')
    if [ "$bt" -gt 0 ]; then pass "$id/resources_block_time"; else fail "$id/resources_block_time" "0 us"; fi
else
    fail "$id/resources_disk" "no /dev/nvme0n1 in the guest"
fi
# The mechanism of each source, from what this kernel has: tp_btf needs the kernel's BTF; block's
# raw_tp reads 5.11+ arguments; the sock tracepoints are 6.x's, else the socket system calls.
rel_major=${release%%.*}; rel_minor=${release#*.}; rel_minor=${rel_minor%%.*}
if [ "$btf" = visible ]; then want_rss=tp_btf; else want_rss=raw_tp; fi
if [ "$rel_major" -gt 5 ] || { [ "$rel_major" -eq 5 ] && [ "$rel_minor" -ge 11 ]; }; then want_block=raw_tp
else want_block=tracepoint; fi
if printf '%s\n' "$res_events" | grep -q '^event sock/sock_send_length'; then want_sock=raw_tp; else want_sock=sys_exit; fi
expect_eq "$id/resources_mech_rss" "$(res_mech "$res" rss)" "$want_rss"
expect_eq "$id/resources_mech_block" "$(res_mech "$res" 'block, block-time')" "$want_block"
expect_eq "$id/resources_mech_files" "$(res_mech "$res" 'read, write')" raw_tp
expect_eq "$id/resources_mech_sockets" "$(res_mech "$res" 'send, recv')" "$want_sock"
# The classic tracepoints (and the socket system calls), forced.
cls=$(case_output "$log" resources_classic)
expect_eq "$id/resources_classic_rc" "$(case_rc "$log" resources_classic)" 0
res_within "$id/resources_classic_rss" "$(res_sum "$cls" rss ';touch_pages;')" $MiB8
res_within "$id/resources_classic_block" "$(res_sum "$cls" block ';direct_write_chunk;')" $MiB8
res_within "$id/resources_classic_write" "$(res_sum "$cls" write ';direct_write_chunk;')" $MiB8
res_within "$id/resources_classic_send" "$(res_sum "$cls" send ';tcp_send_chunk;')" $MiB8
# Faults alone (one kind: plain folded lines), by the page-faults perf event.
flt=$(case_output "$log" resources_faults)
expect_eq "$id/resources_faults_rc" "$(case_rc "$log" resources_faults)" 0
expect_eq "$id/resources_mech_faults" "$(res_mech "$flt" faults)" perf_event
res_within "$id/resources_faults" "$(res_sum "$flt" "" ';touch_pages [0-9]+$')" 2048
# exceptions:page_fault_user is x86's: elsewhere a clear refusal, exit 2.
ftp=$(case_output "$log" resources_faults_tp)
if printf '%s\n' "$res_events" | grep -q '^event exceptions/page_fault_user'; then
    expect_eq "$id/resources_faults_tp_rc" "$(case_rc "$log" resources_faults_tp)" 0
    # single kind: plain folded lines
    res_within "$id/resources_faults_tp" "$(res_sum "$ftp" "" ';touch_pages [0-9]+$')" 2048
    ftp_cell=ok
else
    expect_eq "$id/resources_faults_tp_rc" "$(case_rc "$log" resources_faults_tp)" 2
    expect_contains "$id/resources_faults_tp_refused" "$ftp" "--mechanism faults=tracepoint: not available here: no tracepoint exceptions/page_fault_user in this kernel"
    ftp_cell=refused
fi
cell "resources=rss:$(res_mech "$res" rss),faults:$(res_mech "$flt" faults),block:$(res_mech "$res" 'block, block-time'),files:$(res_mech "$res" 'read, write'),sockets:$(res_mech "$res" 'send, recv'),faults_tp=$ftp_cell"
