# Sourced by the bench scripts after they set root: where the build is, and
# the helpers every table uses.
BUILD=${BUILD:-$root/build}
STK=${STK:-$BUILD/stk}
W=$BUILD/tests/workloads

# The median of numbers on stdin, one per line ("n/a" for none).
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "n/a" }'; }

# wait_attached PID [SETTLE]: until PID holds a BPF program (its fds), then
# SETTLE seconds more (default 0.5) for its attach to finish; 1 after 20 s.
wait_attached() {
    for _ in $(seq 200); do
        grep -qs '^prog_id:' /proc/"$1"/fdinfo/* && { sleep "${2:-0.5}"; return 0; }
        sleep 0.1
    done
    return 1
}

# status_kb PID FIELD: a /proc/PID/status field in kB (VmRSS, VmHWM), empty when gone.
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' /proc/"$1"/status 2>/dev/null; }

# bench_has PKG: whether the Debian package is installed.
bench_has() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

# bench_install NAME PKG...: installs the Debian packages not installed yet
# (apt, no recommends); on failure says so as NAME and exits 1.
bench_install() {
    local name=$1 p missing=""
    shift
    for p in "$@"; do
        bench_has "$p" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null ||
        { echo "$name: cannot install$missing" >&2; exit 1; }
}

# "total_ns runs" of the BPF programs PID holds whose name matches RE (kernel.bpf_stats_enabled on)
bpf_ns_runs() {
    local id
    for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
        bpftool prog show id "$id" 2>/dev/null | re="$2" awk '
            NR == 1 && $0 ~ ENVIRON["re"] { for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") t = $(i+1); if ($i == "run_cnt") c = $(i+1) }
                                 print t + 0, c + 0 }'
    done | awk '{ t += $1; c += $2 } END { print t + 0, c + 0 }'
}
