#!/bin/bash
# Sourced by the MariaDB benchmarks (bench/mariadb.sh, bench/eventlog.sh): a
# private MariaDB (Debian's mariadb-server, from a scratch directory, stopped
# at exit) with sysbench's oltp_read_write tables (4 x 20,000 rows), and the
# helpers they share (with bench/lib.sh's, which the benchmark sources first). Installs mariadb-server, mariadb-client, sysbench and
# $MARIADB_PKGS with apt when missing. Sets tmp, sock, mpid and SB (sysbench's
# command line); needs root.
tmp=$(mktemp -d /tmp/stk-mariadb-XXXXXX)
chmod 755 "$tmp"
sock=$tmp/run/mysqld.sock   # the server writes its socket, pid and log in run/, which its user owns
cleanup() {
    kill -INT $(jobs -p) 2>/dev/null
    [ -f "$tmp/run/mysqld.pid" ] && kill "$(cat "$tmp/run/mysqld.pid")" 2>/dev/null
    wait 2>/dev/null
    sysctl -qw kernel.bpf_stats_enabled=0
    rm -rf "$tmp"
}
trap cleanup EXIT

if ! bench_has mariadb-server; then
    bench_install "${BENCH_NAME:-bench}" mariadb-server mariadb-client sysbench ${MARIADB_PKGS:-}
    systemctl stop mariadb 2>/dev/null # the package starts its own server: this bench runs a private one
fi
bench_install "${BENCH_NAME:-bench}" mariadb-client sysbench ${MARIADB_PKGS:-}

# --- a private MariaDB with sysbench's tables ---
mkdir -p "$tmp/data" "$tmp/run" && chown mysql:mysql "$tmp/data" "$tmp/run"
mariadb-install-db --user=mysql --datadir="$tmp/data" --auth-root-authentication-method=normal >"$tmp/install.log" 2>&1 ||
    { echo "${BENCH_NAME:-bench}: mariadb-install-db failed: $(tail -2 "$tmp/install.log")" >&2; exit 1; }
mariadbd --user=mysql --datadir="$tmp/data" --socket="$sock" --skip-networking --pid-file="$tmp/run/mysqld.pid" \
    --innodb-buffer-pool-size=256M --log-error="$tmp/run/mysqld.err" &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.2; done
[ -S "$sock" ] || { echo "${BENCH_NAME:-bench}: mariadbd did not start: $(tail -3 "$tmp/run/mysqld.err")" >&2; exit 1; }
mpid=$(cat "$tmp/run/mysqld.pid")
mariadb -S "$sock" -u root -e 'CREATE DATABASE sbtest'
SB=(sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=root --tables=4 --table-size=20000)
"${SB[@]}" prepare >/dev/null 2>&1 || { echo "${BENCH_NAME:-bench}: sysbench prepare failed" >&2; exit 1; }

tps() { "${SB[@]}" --threads=4 --time="$1" run 2>/dev/null | sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.3f", a / b; else print "n/a" }'; }
cpu_ns() { sed 's/.*) //' /proc/"$1"/stat | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($12 + $13) * 1e9 / hz }'; }
# host_share CPU_NS BPF_NS WALL_NS: a tool's CPU plus its BPF programs' run time, % of all the host's CPUs
host_share() { awk -v c="$1" -v b="$2" -v t="$3" -v n="$(nproc)" 'BEGIN { printf "%.2f", (c + b) * 100 / t / n }'; }
# in_secs NS: nanoseconds as seconds, two decimals
in_secs() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e9 }'; }
# med "N N ...": the median of a list of numbers
med() { printf '%s\n' $1 | median; }
# load_title SECS ROUNDS: the line above a table
load_title() {
    printf '\nMariaDB %s under sysbench oltp_read_write (4 threads), %d s of load, median of %d rounds; %d CPUs\n' \
        "$(mariadbd --version | awk '{ print $3 }')" "$1" "$2" "$(nproc)"
}
# "ns_per_run" of the BPF programs PID holds whose name matches RE (bench/lib.sh's bpf_ns_runs)
bpf_cost() {
    bpf_ns_runs "$1" "$2" | awk '{ if ($2) printf "%.0f\n", $1 / $2 }'
}
