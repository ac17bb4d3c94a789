#!/bin/bash
# bench/pmp: stk pmp against pt-pmp (Percona Toolkit, which runs gdb) on the
# same processes: an idle MariaDB (Debian's mariadb-server, run privately from
# a scratch directory) and tests/workloads/pmp_threads idle 2000 (2,000
# blocked threads). Prints one table:
#   wall ms          the command, start to printed output (median of REPEAT)
#   snapshot→out ms  stk: from the snapshot to its output (-v's snapshot,
#                    unwinding, resolving and printing times)
#   target paused ms how long threads of the target were stopped while the
#                    tool ran once more, "of" that run's wall time: stk
#                    threadstate samples every thread at 500 Hz meanwhile
#                    (which slows that run) and adds up the time of the
#                    samples with any of them STOPPED (gdb's ptrace stop)
#   threads          threads with a stack / threads in the process
#   root             share of the stacks that reach a thread root (clone3,
#                    _start; main for gdb, which stops its backtrace there)
#   same as gdb      threads whose stk stack has, frame by frame, the functions
#                    gdb shows for them (tests/integration/pmp_vs_gdb.py)
# Everything comes from Debian's packages (percona-toolkit, gdb,
# mariadb-server), installed when missing. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
tmp=$(mktemp -d /tmp/stk-pmp-XXXXXX)
chmod 755 "$tmp"
# The server's own files go in its data directory, which its user owns.
data=$tmp/data
sock=$data/mysqld.sock
cleanup() {
    [ -f "$data/mysqld.pid" ] && kill "$(cat "$data/mysqld.pid")" 2>/dev/null
    [ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

if ! bench_has mariadb-server; then
    bench_install bench/pmp mariadb-server
    systemctl stop mariadb 2>/dev/null # the package starts its own server: this bench runs a private one
fi
bench_install bench/pmp percona-toolkit gdb mariadb-client

# --- the targets: an idle private MariaDB, and 2,000 blocked threads ---
mkdir -p "$data" && chown mysql:mysql "$data"
mariadb-install-db --user=mysql --datadir="$data" --auth-root-authentication-method=normal >"$tmp/install.log" 2>&1 ||
    { echo "bench/pmp: mariadb-install-db failed: $(tail -2 "$tmp/install.log")" >&2; exit 1; }
mariadbd --user=mysql --datadir="$data" --socket="$sock" --skip-networking --pid-file="$data/mysqld.pid" \
    --log-error="$data/mysqld.err" &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.2; done
[ -S "$sock" ] || { echo "bench/pmp: mariadbd did not start: $(tail -3 "$data/mysqld.err")" >&2; exit 1; }
mpid=$(cat "$data/mysqld.pid")
"$BUILD/tests/workloads/pmp_threads" idle 2000 3600 >"$tmp/idle.out" 2>&1 &
wpid=$!
for _ in $(seq 200); do grep -q '^ready' "$tmp/idle.out" && break; sleep 0.1; done
sleep 2 # both settle: idle

now_ms() { date +%s%3N; }
# roots FILE: "reaching a root/all" of pmp-format lines (count first, frames leaf first)
roots() {
    awk '{ n = $1; k = split($2, f, ","); last = f[k]
           all += n; if (last ~ /^(__)?clone3?$|^_start$|^main$/) r += n }
         END { printf "%d %d\n", r, all }' "$1"
}
# paused_ms CSVDIR: the time covered by threadstate's samples in which a thread of the
# target was STOPPED (each sample stands for the time to the next; a pass over 2,000
# threads takes longer than the 2 ms period, so the real spacing is used)
paused_ms() {
    python3 - "$1" <<'PY'
import csv, glob, sys
from datetime import datetime
stopped, times = set(), set()
for p in glob.glob(sys.argv[1] + "/samples-*.csv"):
    for r in csv.DictReader(open(p, newline="")):
        times.add(r["time"])
        if r["state"] == "STOPPED":
            stopped.add(r["time"])
t = sorted(times)
at = {s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() for s in t}
print(round(sum((at[t[i + 1]] - at[t[i]]) * 1000 for i in range(len(t) - 1) if t[i] in stopped)))
PY
}
# same_as_gdb PID MECH: threads whose functions (innermost first) are the ones gdb shows for them
same_as_gdb() {
    PMP_MECHANISM=$2 python3 "$root/tests/integration/pmp_vs_gdb.py" "$STK" "$1" "$(ls /proc/"$1"/task | paste -sd,)" |
        grep -c '^PASS pmp/gdb_same_functions'
}

# run LABEL PID CMD...: REPEAT runs; the last one watched by threadstate. Sets W (median wall ms), OUTF.
run() {
    local label=$1 pid=$2 walls="" i t0 t1 rec
    shift 2
    OUTF=$tmp/$label.out
    for i in $(seq "$REPEAT"); do
        t0=$(now_ms); "$@" >"$OUTF" 2>"$tmp/$label.err"; t1=$(now_ms)
        walls="$walls $((t1 - t0))"
    done
    W=$(printf '%s\n' $walls | median)
    rec=$tmp/$label.rec
    mkdir -p "$rec"
    "$STK" threadstate -a -F 500 -p "$pid" -o "$rec" >/dev/null 2>&1 &
    local ts=$!
    sleep 1
    t0=$(now_ms); "$@" >/dev/null 2>&1; t1=$(now_ms)
    sleep 0.2
    kill -INT $ts; wait $ts 2>/dev/null
    P="$(paused_ms "$rec") of $((t1 - t0))"
}

# The mechanism stk picks here, and /proc, the one older kernels get.
mechs=$("$STK" info 2>/dev/null | sed -n 's/^pmp thread snapshot: \([a-z_]*\) .*/\1/p')
[ "$mechs" = proc ] || mechs="$mechs proc"
rows=()
for target in mariadb idle2000; do
    if [ $target = mariadb ]; then pid=$mpid; else pid=$wpid; fi
    nthreads=$(ls /proc/"$pid"/task | wc -l)
    # pt-pmp: gdb attaches, stops the process, prints every backtrace
    run "pt-pmp-$target" "$pid" pt-pmp --pid "$pid"
    read -r r a < <(roots "$OUTF")
    rows+=("$target ($nthreads threads)|pt-pmp|$W|-|$P|$a/$nthreads|$(awk -v r="$r" -v a="$a" 'BEGIN { printf "%.0f%%", a ? 100 * r / a : 0 }')|-")
    # stk pmp -U (the frames pt-pmp shows), by the first mechanism and by /proc
    for mech in $mechs; do
        run "stk-$mech-$target" "$pid" "$STK" pmp -U --mechanism $mech -p "$pid"
        read -r r a < <(roots "$OUTF")
        "$STK" pmp -U -v --mechanism $mech -p "$pid" 2>"$tmp/v.err" >/dev/null
        s2o=$(awk '/snapshots .* ms, unwinding/ { for (i = 1; i <= NF; i++) { if ($i == "snapshots") s = $(i+1); if ($i == "unwinding") u = $(i+1) } }
                  /resolved and printed/ { for (i = 1; i <= NF; i++) if ($i == "in") p = $(i+1) }
                  END { printf "%.0f", s + u + p }' "$tmp/v.err")
        rows+=("$target ($nthreads threads)|stk pmp ($mech)|$W|$s2o|$P|$a/$nthreads|$(awk -v r="$r" -v a="$a" 'BEGIN { printf "%.0f%%", a ? 100 * r / a : 0 }')|$(same_as_gdb "$pid" $mech)/$nthreads")
    done
done

echo "stk pmp vs pt-pmp $(dpkg-query -W -f='${Version}' percona-toolkit) (gdb $(dpkg-query -W -f='${Version}' gdb)), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), medians of $REPEAT"
printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' target tool "wall ms" "snapshot→out ms" "target paused ms" threads \
    "reach a root" "same functions as gdb"
printf '|---|---|---|---|---|---|---|---|\n'
for r in "${rows[@]}"; do printf '| %s |\n' "${r//|/ | }"; done
