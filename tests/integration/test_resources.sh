#!/bin/bash
# needs: root (BPF: tracepoints, raw tracepoints, page-fault perf events)
# stk resources against tests/workloads/resources (no frame pointers): known
# bytes of memory, O_DIRECT disk I/O, loopback TCP and UDP, each from a
# function of its own, weighed by every kind and every mechanism this host
# has; pprof decoded by its schema and read by the real pprof; writeback said
# as the kernel's; a kind the kernel lacks said in one line while the others
# run; bad input.
SUITE=resources
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
# On a disk file system (O_DIRECT needs one; tmpfs has none).
tmp=$(mktemp -d /var/tmp/stk-resources.XXXXXX)
workloads_begin
MIB=$((1024 * 1024))
ALL=rss,faults,block,block-time,read,write,send,recv

# kind_sum FILE KIND REGEX: the total of folded lines of KIND matching REGEX (FILE has several kinds)
kind_sum() {
    kind="$2" re="$3" awk '
        BEGIN { kind = ENVIRON["kind"] ";"; re = ENVIRON["re"] }
        index($0, kind) == 1 && $0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"
}

# capture NAME MODE MIB [exit] -- STK-ARGS...: the workload in MODE (target $tmp/NAME.dat), stk
# resources -p its pid with STK-ARGS until the workload is done (+1 s); $tmp/NAME.{out,err}, rc in RC.
capture() {
    local name=$1 mode=$2 mib=$3 linger=stay
    shift 3
    [ "$1" = exit ] && { linger=exit; shift; }
    [ "$1" = -- ] && shift
    start_workload "$W/resources" "$mode" "$mib" "$tmp/$name.dat" "$linger"
    local wpid=$WPID wout
    wout=$(ls -t "$tmp"/ready.* | head -1)
    "$STK" resources -v -p "$wpid" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" & local sp=$!
    for _ in $(seq 150); do grep -qs 'tracing .* ms after start' "$tmp/$name.err" && break; sleep 0.1; done
    kill -USR1 "$wpid"
    for _ in $(seq 300); do grep -q '^done' "$wout" && break; sleep 0.1; done
    sleep 1
    kill -INT "$sp"
    wait "$sp"
    RC=$?
    grep -q '^done' "$wout" || fail "${name}_workload_done" "$(cat "$wout")"
    stop_workloads
}

# --- every kind at once, one profile ---
capture all all 32 -- -e "$ALL" -o "$tmp/all.folded" -o "$tmp/all.pb.gz" -o "$tmp/all.txt" -o "$tmp/all.svg"
expect_eq all_rc "$RC" 0
f=$tmp/all.folded
for k in rss/grow_memory\;touch_pages block/direct_io\;direct_write_chunk block/direct_io\;direct_read_chunk \
         write/direct_io\;direct_write_chunk read/direct_io\;direct_read_chunk \
         send/tcp_transfer\;tcp_send_chunk recv/tcp_receiver\;tcp_recv_chunk; do
    kind=${k%%/*} path=${k#*/}
    expect_within "all_${kind}_${path##*;}_32MiB" 10 "$(kind_sum "$f" "$kind" ";main;$path;|;start_thread;$path;")" $((32 * MIB))
done
expect_within all_faults_touch_pages 10 "$(kind_sum "$f" faults ';main;grow_memory;touch_pages( |;)')" 8192
# 4096 datagrams of 1000 bytes; loopback may drop a few the receiver had no room for
expect_within all_send_udp_datagrams 10 "$(kind_sum "$f" send ';main;udp_transfer;udp_send_datagram;')" 4096000
udp_got=$(sed -n 's/^udp received //p' "$(ls -t "$tmp"/ready.* | head -1)" | head -1)
expect_within all_recv_udp_datagrams 10 "$(kind_sum "$f" recv ';udp_receiver;udp_recv_datagram;')" "${udp_got:-the workload did not say}"
# reads and writes apart, each leaf naming its direction; system calls named where their frames are not taken
# (a direct write may read file-system metadata, a block bitmap or extent block, on its way:
# reads of a few KiB, not the written data)
rd_under_w=$(kind_sum "$f" block 'direct_write_chunk;.*\[block read\]')
if [ "$rd_under_w" -le $((32 * MIB / 100)) ]; then pass all_block_write_marked
else fail all_block_write_marked "$rd_under_w bytes marked read under direct_write_chunk"; fi
expect_contains all_block_write_leaf "$(cat "$f")" "blk_mq_submit_bio;[block write] "
expect_contains all_write_syscall_frame "$(grep '^write;.*direct_write_chunk' "$f")" "direct_write_chunk;__libc_pwrite;[sys_pwrite64] "
bt_w=$(kind_sum "$f" block_time 'direct_write_chunk;.*\[block write\]')
bt_r=$(kind_sum "$f" block_time 'direct_read_chunk;.*\[block read\]')
if [ "$bt_w" -gt 0 ] && [ "$bt_r" -gt 0 ]; then pass all_block_time_both_ways
else fail all_block_time_both_ways "write ${bt_w} us, read ${bt_r} us"; fi
expect_contains all_text_sections "$(cat "$tmp/all.txt")" "rss (bytes):"
expect_contains all_text_block_time "$(cat "$tmp/all.txt")" "block_time (microseconds):"
if xmllint --noout "$tmp/all.svg" 2>"$tmp/x.err"; then pass all_svg_well_formed
else fail all_svg_well_formed "$(head -3 "$tmp/x.err")"; fi
expect_contains all_svg_title "$(cat "$tmp/all.svg")" ">stk resources: rss (bytes), faults (count), block (bytes), block_time (microseconds), read (bytes), write (bytes), send (bytes), recv (bytes)</text>"

# pprof by its schema: a sample type per kind with its unit, the values of the folded lines
schema=/usr/share/gocode/src/github.com/google/pprof/proto
if zcat "$tmp/all.pb.gz" | protoc --decode=perftools.profiles.Profile --proto_path="$schema" \
        "$schema/profile.proto" >"$tmp/all.decoded" 2>"$tmp/p.err"; then
    types=$(awk '
        BEGIN { n = 0; m = 0 }
        /^string_table: / { s[n++] = $2 }
        /^sample_type \{/ { st = 1; next } st && /type: / { t = $2 } st && /unit: / { u[m] = t " " $2; m++ } /^}/ { st = 0 }
        END { for (i = 0; i < m; i++) { split(u[i], a, " "); printf "%s/%s ", s[a[1]], s[a[2]] } }' "$tmp/all.decoded" | tr -d '"')
    expect_eq pprof_sample_types "$types" "rss/bytes faults/count block/bytes block_time/microseconds read/bytes write/bytes send/bytes recv/bytes "
    # the n-th value of each sample is the n-th type's; their sums are the folded sums
    sums=$(awk '/^sample \{/ { i = 0 } /^  value: / { t[i++] += $2 } END { for (k = 0; k < 8; k++) printf "%.0f ", t[k] }' "$tmp/all.decoded")
    want=""
    for k in rss faults block block_time read write send recv; do want="$want$(kind_sum "$f" "$k" .) "; done
    expect_eq pprof_values_per_type "$sums" "$want"
else
    fail pprof_decodes "$(cat "$tmp/p.err")"
fi
# The real pprof, built once from golang-github-google-pprof-dev's source (GOPATH mode, offline).
PPROF=$BUILD/tests/pprof
if [ ! -x "$PPROF" ]; then
    GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$BUILD/tests/gocache GOFLAGS= \
        go build -o "$PPROF" github.com/google/pprof >"$tmp/go.log" 2>&1
fi
if [ -x "$PPROF" ]; then
    raw=$("$PPROF" -raw "$tmp/all.pb.gz" 2>&1)
    expect_contains real_pprof_types "$raw" "rss/bytes faults/count block/bytes block_time/microseconds read/bytes write/bytes send/bytes recv/bytes"
    top=$("$PPROF" -top -sample_index=send -nodecount=100 "$tmp/all.pb.gz" 2>&1)
    expect_contains real_pprof_send_leaf "$top" "tcp_send_chunk"
    expect_contains real_pprof_send_type "$top" "Type: send"
else
    fail pprof_tool_built "go build: $(head -c 300 "$tmp/go.log")"
fi

# --- every Nth: the weight scaled up ---
capture nth memory 64 -- -e rss:29,faults:29 -f
expect_eq nth_rc "$RC" 0
expect_within nth_rss_scaled 10 "$(kind_sum "$tmp/nth.out" rss ';touch_pages;')" $((64 * MIB))
expect_within nth_faults_scaled 10 "$(kind_sum "$tmp/nth.out" faults ';touch_pages( |$)')" 16384

# --- each mechanism of each ladder this host has, forced ---
mech() { # NAME MODE KIND REGEX WANT MECHANISMS
    capture "mech_$1" "$2" 16 -- -e "$3" -f --mechanism "$6"
    expect_eq "mech_$1_rc" "$RC" 0
    expect_contains "mech_$1_chosen" "$(cat "$tmp/mech_$1.err")" "mechanism ${6#*=}"
    # one kind: plain folded lines, "comm;frames value"
    local got
    got=$(re="$4" awk 'BEGIN { re = ENVIRON["re"] } $0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$tmp/mech_$1.out")
    expect_within "mech_$1_bytes" 10 "$got" "$5"
}
mech rss_tp_btf memory rss ';touch_pages;' $((16 * MIB)) rss=tp_btf
mech rss_raw_tp memory rss ';touch_pages;' $((16 * MIB)) rss=raw_tp
mech rss_tracepoint memory rss ';touch_pages;' $((16 * MIB)) rss=tracepoint
mech faults_perf memory faults ';touch_pages( |$)' 4096 faults=perf_event
mech faults_tracepoint memory faults ';touch_pages( |$)' 4096 faults=tracepoint
mech block_raw_tp direct block ';direct_write_chunk;' $((16 * MIB)) block=raw_tp
mech block_tracepoint direct block ';direct_write_chunk;' $((16 * MIB)) block=tracepoint
mech write_raw_tp direct write ';direct_write_chunk;' $((16 * MIB)) write=raw_tp
mech write_tracepoint direct write ';direct_write_chunk;' $((16 * MIB)) write=tracepoint
mech read_cached cached read ';cached_read_chunk;' $((16 * MIB)) read=tracepoint
mech send_raw_tp tcp send ';tcp_send_chunk;' $((16 * MIB)) send=raw_tp
mech send_tracepoint tcp send ';tcp_send_chunk;' $((16 * MIB)) send=tracepoint
mech send_sys_exit tcp send ';tcp_send_chunk;' $((16 * MIB)) send=sys_exit
mech recv_sys_exit tcp recv ';tcp_recv_chunk;' $((16 * MIB)) recv=sys_exit
mech udp_sys_exit udp send ';udp_send_datagram;' 2048000 send=sys_exit

# --- the stack copy unwound in user space, and frame pointers ---
capture dwarf all 8 -- -e rss,block,send --unwind dwarf -f
expect_eq dwarf_rc "$RC" 0
expect_within dwarf_rss 10 "$(kind_sum "$tmp/dwarf.out" rss ';main;grow_memory;touch_pages;')" $((8 * MIB))
expect_within dwarf_block 10 "$(kind_sum "$tmp/dwarf.out" block ';main;direct_io;direct_write_chunk;')" $((8 * MIB))
capture fp memory 8 -- -e rss --unwind fp -f
expect_eq fp_rc "$RC" 0
# no frame pointers: the callers are lost, the bytes are not
expect_within fp_rss 10 "$(awk '/touch_pages/ { s += $NF } END { printf "%.0f\n", s }' "$tmp/fp.out")" $((8 * MIB))

# --- a process that exits during the capture still has its stacks named ---
capture exits memory 16 exit -- -e rss -f
expect_eq exits_rc "$RC" 0
expect_within exits_rss_named 10 "$(awk '/;main;grow_memory;touch_pages;/ { s += $NF } END { printf "%.0f\n", s }' "$tmp/exits.out")" $((16 * MIB))

# --- -t: one thread, named with its tid ---
start_workload "$W/resources" memory 8 "$tmp/t.dat"
tpid=$WPID
"$STK" resources -v -t "$tpid" -e rss -f 8 >"$tmp/t.out" 2>"$tmp/t.err" & sp=$!
for _ in $(seq 150); do grep -qs 'tracing .* ms after start' "$tmp/t.err" && break; sleep 0.1; done
kill -USR1 "$tpid"; sleep 2; kill -INT "$sp"; wait "$sp"
expect_within tid_rss 10 "$(awk -v t="resources ($tpid/$tpid);" 'index($0, t) == 1 && /touch_pages/ { s += $NF } END { printf "%.0f\n", s }' "$tmp/t.out")" $((8 * MIB))
stop_workloads

# --- writeback: the flusher kworker writes what the workload dirtied, and says so ---
start_workload "$W/resources" writeback 32 "$tmp/wb.dat"
wpid=$WPID wout=$(ls -t "$tmp"/ready.* | head -1)
"$STK" resources -v -e block -f >"$tmp/wb.out" 2>"$tmp/wb.err" & sp=$!
for _ in $(seq 150); do grep -qs 'tracing .* ms after start' "$tmp/wb.err" && break; sleep 0.1; done
kill -USR1 "$wpid"
for _ in $(seq 300); do grep -q '^done' "$wout" && break; sleep 0.1; done
kill -INT "$sp"; wait "$sp"
flushed=$(awk '/^kworker[^;]*;\[kernel thread: writeback\];.*wb_writeback;.*\[block write\] [0-9]+$/ { s += $NF } END { printf "%.0f\n", s }' "$tmp/wb.out")
# at least the 32 MiB dirtied (the flusher may write others' pages too)
if [ "$flushed" -ge $((32 * MIB * 9 / 10)) ]; then pass writeback_by_the_flusher
else fail writeback_by_the_flusher "${flushed} bytes under [kernel thread: writeback]: $(grep -m3 kworker "$tmp/wb.out")"; fi
expect_eq writeback_not_the_writer "$(grep -c 'dirty_pages;.*\[block write\]' "$tmp/wb.out")" 0
stop_workloads

# --- a kind this kernel cannot give: one line, the others run (an old kernel's shape: no
# sock tracepoints, no BTF). In a mount namespace of its own, whatever the host has mounted:
# an empty debugfs (stk would read tracing there first), tracefs (a host may boot without
# it; mounted twice on one place it refuses), and an empty directory over its sock events ---
start_workload "$W/resources" memory 8 "$tmp/u.dat"
upid=$WPID
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && mount -t tmpfs none /sys/kernel/debug &&
                  { [ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing; } &&
                  mount -t tmpfs none /sys/kernel/tracing/events/sock &&
                  exec '$STK' resources -p $upid -e rss,send,recv -f 6" >"$tmp/u.out" 2>"$tmp/u.err" & sp=$!
sleep 3; kill -USR1 "$upid"; wait "$sp"; urc=$?
expect_eq unavailable_rc "$urc" 0
expect_eq unavailable_one_line "$(grep -c 'unavailable' "$tmp/u.err")" 1
expect_contains unavailable_says_why "$(cat "$tmp/u.err")" "resources: send, recv unavailable on this kernel (raw_tp: no tracepoint sock/sock_send_length in this kernel; tracepoint: no tracepoint sock/sock_send_length in this kernel; sys_exit: reads kernel structures with CO-RE: needs BTF"
expect_within unavailable_others_run 10 "$(awk '/touch_pages/ { s += $NF } END { printf "%.0f\n", s }' "$tmp/u.out")" $((8 * MIB))
stop_workloads

# --- what stk info says each ladder starts with is what resources takes ---
info=$("$STK" info 2>/dev/null)
for pair in memory/rss faults/faults block/block files/write sockets/send syscalls/syscall; do
    cls=${pair%/*} kind=${pair#*/}
    want=$(printf '%s\n' "$info" | sed -n "s/^resources $cls: \([a-z_]*\) .*/\1/p")
    run_capture "$STK" resources -v -e "$kind" -f 0.2
    got=$(printf '%s\n' "$ERR" | sed -n "s/^resources: [a-z, -]*: mechanism \([a-z_]*\).*/\1/p")
    expect_eq "info_ladder_$cls" "$got" "$want"
done

# --- signals print results and exit 0; kill -9 leaves nothing attached ---
"$STK" resources -e write -f >"$tmp/sig.out" 2>&1 & sp=$!
sleep 1.5; kill -TERM $sp; wait $sp
expect_eq sigterm_rc "$?" 0
"$STK" resources -e "$ALL" >/dev/null 2>&1 & kp=$!
sleep 2
kill9_leaves_nothing "$kp"

# --- bad input: one line, exit 2 ---
bad() { # NAME NEEDLE ARGS...
    local name=$1 needle=$2; shift 2
    run_capture "$STK" resources "$@"
    if [ "$RC" -eq 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && [ -z "$OUT" ]; then
        expect_contains "bad_$name" "$ERR" "$needle"
    else
        fail "bad_$name" "rc=$RC out=$OUT err=$ERR"
    fi
}
bad unknown_kind "-e: unknown kind 'disk' (expected rss, faults, block, block-time, read, write, send, recv, syscall or iorq)" -e rss,disk 1
bad no_kind "missing -e KIND" 1
bad kind_twice "-e: rss given twice" -e rss,rss 1
bad zero_every "-e rss: expected KIND:N with N from 1" -e rss:0 1
bad block_every_apart "same N" -e block:2,block-time:3 1
bad bad_mechanism "--mechanism rss=kprobe: rss takes tp_btf, raw_tp or tracepoint" -e rss --mechanism rss=kprobe 1
bad mechanism_not_asked "--mechanism for send, recv, which -e does not ask for" -e rss --mechanism send=raw_tp 1
bad no_such_pid "-p 999999: no such process" -e rss -p 999999 1
bad pid_and_tid "-p and -t are mutually exclusive" -e rss -p 1 -t 1
bad bad_duration "duration abc" -e rss abc
run_capture setpriv --reuid=65534 --regid=65534 --clear-groups "$STK" resources -e rss 1
expect_eq unprivileged_rc "$RC" 2
