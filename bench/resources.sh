#!/bin/bash
# bench/resources: stk resources -e block,send,recv against Debian's bpftrace
# doing the same sums with tracepoints, in one run, under an I/O job
# (tests/workloads/resources io: MIB of O_DIRECT writes and reads, then MIB
# over loopback TCP). Prints a table: the BPF time each tool's programs took
# per job (kernel.bpf_stats_enabled: the run_time_ns of every program the
# tool holds, summed), the events they ran for, each tool's own CPU time, the
# bytes each summed (they must agree), and the job's slowdown (wall time
# with the tool / without), medians of REPEAT runs. Needs root and a disk
# file system at TARGET_DIR (O_DIRECT). Installs bpftrace with apt if missing.
# Do not run it while others benchmark on the host.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-5}
MIB=${MIB:-256}
TARGET_DIR=${TARGET_DIR:-/var/tmp}
tmp=$(mktemp -d)
data=$(mktemp "$TARGET_DIR/stk-bench-resources.XXXXXX")
trap 'kill -INT $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp" "$data"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT

bench_install bench/resources bpftrace

# The same sums as stk's default: a request's stacks where it is made (block_getrq), its bytes
# when issued; bytes sent and received on TCP and UDP sockets, with their stacks.
BT='tracepoint:block:block_getrq { @ks[args->sector] = kstack; @us[args->sector] = ustack; @c[args->sector] = comm; }
tracepoint:block:block_rq_issue /@c[args->sector] != ""/ {
  @block[@ks[args->sector], @us[args->sector], @c[args->sector]] = sum(args->nr_sector * 512);
  delete(@ks[args->sector]); delete(@us[args->sector]); delete(@c[args->sector]); }
tracepoint:sock:sock_send_length /args->ret > 0 && (args->family == 2 || args->family == 10) && (args->protocol == 6 || args->protocol == 17)/ {
  @send[kstack, ustack, comm] = sum(args->ret); }
tracepoint:sock:sock_recv_length /args->ret > 0 && !(args->flags & 2) && (args->family == 2 || args->family == 10) && (args->protocol == 6 || args->protocol == 17)/ {
  @recv[kstack, ustack, comm] = sum(args->ret); }
END { clear(@ks); clear(@us); clear(@c); }'
# bpftrace 0.17 needs tracefs for tracepoints; where the host has none mounted, a private mount.
run_bpftrace() { exec unshare -m sh -c "mount -t tracefs none /sys/kernel/tracing 2>/dev/null; exec bpftrace -e '$BT'"; }


# "run_time_ns run_cnt" of every BPF program process PID holds (through its fdinfo), summed
prog_cost() {
    local id t=0 c=0 line
    for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
        line=$(bpftool prog show id "$id" 2>/dev/null | awk 'NR == 1 { for (i = 1; i <= NF; i++) {
            if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) } print t + 0, c + 0 }')
        t=$((t + ${line% *})) c=$((c + ${line#* }))
    done
    echo "$t $c"
}
cpu_ns() { sed 's/.*) //' /proc/"$1"/stat | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($12 + $13) * 1e9 / hz }'; }
job_ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$W/resources" io "$MIB" "$data" go >/dev/null || { echo "n/a"; return; }
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
}
# wait until PID holds a BPF program (attached) and has settled, at most 20 s

sysctl -qw kernel.bpf_stats_enabled=1
base=()
for _ in $(seq "$REPEAT"); do base+=("$(job_ms)"); done
base_ms=$(printf '%s\n' "${base[@]}" | median)

declare -A bpf_ms events tool_ms slow bytes
measure() { # LABEL CMD...
    local label=$1 b=() e=() u=() t=() y=() cpu0 c0 n0 c1 n1; shift
    for _ in $(seq "$REPEAT"); do
        "$@" >"$tmp/out" 2>"$tmp/err" & local tp=$!
        if ! wait_attached $tp 1; then echo "$label did not attach: $(head -1 "$tmp/err")" >&2; kill -9 $tp; wait $tp 2>/dev/null; continue; fi
        cpu0=$(cpu_ns $tp)
        read -r c0 n0 < <(prog_cost $tp)
        t+=("$(job_ms)")
        read -r c1 n1 < <(prog_cost $tp)
        b+=("$(( (c1 - c0) / 1000 ))")
        e+=("$(( n1 - n0 ))")
        u+=("$(( ($(cpu_ns $tp) - cpu0) / 1000000 ))")
        kill -INT $tp; wait $tp 2>/dev/null
        # bytes summed for the job's process: stk's folded lines (KIND;COMM;...), bpftrace's maps (", COMM]: N")
        y+=("$(awk -F';' '$2 == "resources" { n = split($NF, a, " "); s += a[n] }
                          /^, resources\]: [0-9]+$/ { split($0, a, ": "); s += a[2] }
                          END { printf "%d\n", s }' "$tmp/out")")
    done
    bpf_ms[$label]=$(printf '%s\n' "${b[@]}" | grep . | median)
    events[$label]=$(printf '%s\n' "${e[@]}" | grep . | median)
    tool_ms[$label]=$(printf '%s\n' "${u[@]}" | grep . | median)
    slow[$label]=$(printf '%s\n' "${t[@]}" | grep . | median)
    bytes[$label]=$(printf '%s\n' "${y[@]}" | grep . | median)
}
labels=("stk cfi" "stk fp" "bpftrace")
measure "stk cfi" "$STK" resources -e block,send,recv -f
measure "stk fp" "$STK" resources -e block,send,recv -f --unwind fp
measure "bpftrace" run_bpftrace

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '\n%-50s %s\n' "measure (job: $MIB MiB O_DIRECT out and in, $MIB MiB TCP; median of $REPEAT)" "value"
printf '%-50s %s\n' "job alone (ms)" "$base_ms"
for l in "${labels[@]}"; do
    printf '%-50s %s\n' "$l: BPF time per job (us)" "${bpf_ms[$l]:-n/a}"
    printf '%-50s %s\n' "$l: BPF program runs per job" "${events[$l]:-n/a}"
    printf '%-50s %s\n' "$l: BPF time per run (ns)" "$(awk -v t="${bpf_ms[$l]:-}" -v n="${events[$l]:-}" \
        'BEGIN { if (t ~ /^[0-9]+$/ && n > 0) printf "%.0f", t * 1000 / n; else print "n/a" }')"
    printf '%-50s %s\n' "$l: its own CPU per job (ms)" "${tool_ms[$l]:-n/a}"
    printf '%-50s %s\n' "$l: bytes summed for the job (want $((4 * MIB * 1048576)))" "${bytes[$l]:-n/a}"
    printf '%-50s %s\n' "$l: slowdown of the job" "$(ratio "${slow[$l]:-}" "$base_ms")"
done
printf '%-50s %s\n' "stk cfi / bpftrace BPF time" "$(ratio "${bpf_ms[stk cfi]:-}" "${bpf_ms[bpftrace]:-}")"
printf '%-50s %s\n' "stk fp / bpftrace BPF time" "$(ratio "${bpf_ms[stk fp]:-}" "${bpf_ms[bpftrace]:-}")"
