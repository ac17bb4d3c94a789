#!/bin/bash
# bench/top: what the live view costs against `stk threadstate -F 1`, the
# sampling it draws, with N idle threads on the host (tests/workloads/threads
# idle N, plus whatever else runs). stk top runs in a tmux pane (100x40, so
# it draws a full screen every second); threadstate prints its table every
# second into a file. For each N, medians of REPEAT runs of DURATION s:
#   stk CPU %   the tool's user+system time over the middle of the run
#   BPF CPU %   its BPF programs' run time (kernel.bpf_stats_enabled)
#   key ms      stk top only: from a key sent (/) to the screen showing its
#               prompt, read back with tmux capture-pane every 10 ms (so an
#               upper bound, including tmux's own latency)
# Needs root and tmux.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
DURATION=${DURATION:-12}
THREADS=${THREADS:-"1000 10000"}
tmp=$(mktemp -d)
sock=stk-bench-$$
wpid=""
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; [ -n "$wpid" ] && kill "$wpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT
command -v tmux >/dev/null || { echo "bench/top: needs tmux (apt-get install tmux)" >&2; exit 2; }
sysctl -qw kernel.bpf_stats_enabled=1
hz=$(getconf CLK_TCK)

# ticks PID: utime + stime so far
ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat 2>/dev/null; }

# measure PID: "stk_cpu_pct bpf_cpu_pct" over DURATION - 4 s in the middle of a run
measure() {
    local pid=$1 span=$((DURATION - 4)) t0 t1 b0 b1
    sleep 2
    t0=$(ticks "$pid") b0=$(bpf_ns_runs "$pid" . | cut -d" " -f1)
    sleep "$span"
    t1=$(ticks "$pid") b1=$(bpf_ns_runs "$pid" . | cut -d" " -f1)
    awk -v t="$((t1 - t0))" -v hz="$hz" -v b="$((b1 - b0))" -v s="$span" \
        'BEGIN { printf "%.2f %.2f", t / hz / s * 100, b / 1e9 / s * 100 }'
}

run_threadstate() {
    "$STK" threadstate -F 1 -i 1 -d "$DURATION" >/dev/null 2>&1 &
    local pid=$!
    sleep 0.5
    echo "$(measure "$pid")"
    wait "$pid"
}

# key_ms: / sent, until "search:" shows; then Esc
key_ms() {
    local t0 t1
    t0=$(date +%s%N)
    tm send-keys -t top /
    for _ in $(seq 500); do
        tm capture-pane -p -t top 2>/dev/null | grep -q '^search:' && break
        sleep 0.01
    done
    t1=$(date +%s%N)
    tm send-keys -t top Escape
    echo $(((t1 - t0) / 1000000))
}

run_top() {
    tm kill-server 2>/dev/null
    tm new-session -d -s top -x 100 -y 40 "'$STK' top -F 1"
    local pid=""
    for _ in $(seq 100); do
        pid=$(pgrep -n -f "$STK top -F 1") && break
        sleep 0.05
    done
    local cost keys=()
    cost=$(measure "$pid")
    for _ in 1 2 3 4 5; do keys+=("$(key_ms)"); sleep 0.3; done
    echo "$cost $(printf '%s\n' "${keys[@]}" | median)"
    tm send-keys -t top q
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

printf '%-8s %-26s %10s %10s %8s\n' threads tool "stk CPU %" "BPF CPU %" "key ms"
for n in $THREADS; do
    "$BUILD/tests/workloads/threads" idle "$n" >"$tmp/w" 2>&1 &
    wpid=$!
    for _ in $(seq 200); do grep -q ready "$tmp/w" && break; sleep 0.05; done
    for tool in threadstate top; do
        : >"$tmp/runs"
        for _ in $(seq "$REPEAT"); do "run_$tool" >>"$tmp/runs"; done
        cpu=$(awk '{ print $1 }' "$tmp/runs" | median)
        bpf=$(awk '{ print $2 }' "$tmp/runs" | median)
        key=$( [ "$tool" = top ] && awk '{ print $3 }' "$tmp/runs" | median || echo "")
        label=$( [ "$tool" = top ] && echo "stk top -F 1" || echo "stk threadstate -F 1 -i 1")
        printf '%-8s %-26s %10s %10s %8s\n' "$n" "$label" "$cpu" "$bpf" "$key"
    done
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    wpid=""
done
