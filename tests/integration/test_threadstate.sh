#!/bin/bash
# needs: root (task iterator and tracepoint BPF programs; /proc of other users)
# stk threadstate against tests/workloads/threads: threads that spin (RUN),
# share one CPU (RUNQ), read a pipe, sleep in nanosleep, wait in vfork (D)
# and a stopped process, sampled by every source this kernel supports.
SUITE=threadstate
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
last_cpu=$(($(nproc) - 1))

# --- bad input: one line, exit 2 ---
bad() { expect_bad_input "$1" "stk threadstate: " "$STK" threadstate "${@:2}"; } # NAME ARGS...
bad frequency_zero -F 0
bad frequency_text -F fast
bad interval -i -1
bad group_column -g state,nosuch
bad group_add_column -G nosuch
bad pid_missing -p 999999999
bad pid_text -p abc
bad source --source magic
bad cgroup --cgroup /nonexistent/cgroup
bad output_dir -o /nonexistent/dir -n 1
bad output_file -o /etc/hostname -n 1
bad iterations -n 0
bad unknown_option --frobnicate
bad extra_argument 5
expect_contains bad_group_message "$(stk_err=$("$STK" threadstate -g nosuch 2>&1); echo "$stk_err")" "unknown column 'nosuch'"

run_capture "$STK" threadstate --help
expect_contains help "$OUT" "usage: stk threadstate"
run_capture "$STK" threadstate --list-columns
expect_eq list_columns "$(printf '%s\n' "$OUT" | awk '{ print $1 }' | tr '\n' ' ')" \
    "state username comm syscall wchan filename exe pid tid kstack ustack "

# --- the workload ---
"$W/threads" known >"$tmp/tids" 2>&1 &
wpid=$!
pids+=($wpid)
for _ in $(seq 100); do grep -q '^ready$' "$tmp/tids" && break; sleep 0.05; done
stopped=$(awk '$1 == "stopped" { print $2 }' "$tmp/tids")
spin=$(awk '$1 == "spin" { print $2 }' "$tmp/tids")
[ -n "$stopped" ] && [ -n "$spin" ] && pass workload_ready || fail workload_ready "$(cat "$tmp/tids")"
sleep 0.5

# The source stk info says threadstate uses is what it really picks.
info_choice=$("$STK" info 2>/dev/null | sed -n 's/^threadstate thread sampling: *\([a-z_]*\).*/\1/p')
run_capture "$STK" threadstate -v -n 1 -p "$wpid"
expect_contains default_source_is_info_choice "$ERR" "threadstate: source $info_choice"

# oncpu_ns TID: time on CPU so far (schedstat)
oncpu_ns() { awk '{ print $1 }' "/proc/$wpid/task/$1/schedstat"; }

for src in task_iter tracepoint_state proc; do
    rec=$tmp/rec-$src
    mkdir -p "$rec"
    t0=$(date +%s%N) c0=$(oncpu_ns "$spin")
    # stk on the busy threads' CPU, so its own passes do not preempt the spinner on CPU 0.
    run_capture taskset -c "$last_cpu" "$STK" threadstate --source "$src" -v -a -T -F 10 -d 3 -o "$rec" \
        -p "$wpid,$stopped"
    t1=$(date +%s%N) c1=$(oncpu_ns "$spin")
    if [ "$RC" -ne 0 ]; then
        fail "${src}_recording" "rc=$RC err=$ERR"
        continue
    fi
    expect_contains "${src}_verbose_names_source" "$ERR" "threadstate: source $src"
    run_fraction=$(awk -v c="$((c1 - c0))" -v t="$((t1 - t0))" 'BEGIN { printf "%.3f", c / t }')
    python3 "$here/threadstate_check.py" "$rec" "$tmp/tids" "$src" "$run_fraction"

    # The terminal view: the spinner is one thread on average, whatever its RUN/RUNQ split.
    run_capture taskset -c "$last_cpu" "$STK" threadstate --source "$src" -g comm -F 20 -i 2 -d 2.3 -p "$wpid"
    avg=$(printf '%s\n' "$OUT" | awk '$2 == "spin" { print $1; exit }')
    if awk -v a="${avg:-0}" 'BEGIN { exit !(a >= 0.9 && a <= 1.1) }'; then
        pass "${src}_table_spin_avg_one"
    else
        fail "${src}_table_spin_avg_one" "avg '${avg}' in: $(printf '%s' "$OUT" | head -c 600)"
    fi
    expect_contains "${src}_table_header" "$OUT" "samples, source $src"
done

# --- -u: user stacks (taken at switch-out by the tracepoint source, which -u picks) ---
rec=$tmp/ustacks
mkdir -p "$rec"
run_capture taskset -c "$last_cpu" "$STK" threadstate -v -u -F 10 -d 2 -o "$rec" -p "$wpid"
expect_contains user_stacks_source "$ERR" "threadstate: source tracepoint_state"
ustacks=$(cat "$rec"/stacks-*.csv 2>/dev/null | grep ',user,')
expect_contains user_stack_of_busy "$ustacks" "start_thread;busy;spin_forever"
used=$(python3 - "$rec" <<'PY'
import csv, glob, sys
stacks = {r["hash"] for p in glob.glob(sys.argv[1] + "/stacks-*.csv") for r in csv.DictReader(open(p, newline=""))}
rows = [r for p in glob.glob(sys.argv[1] + "/samples-*.csv") for r in csv.DictReader(open(p, newline=""))]
busy = [r for r in rows if r["comm"].startswith("busy") and r["state"] == "RUNQ"]
print("ok" if busy and all(r["ustack"] in stacks for r in busy) else f"{len(busy)} RUNQ busy rows, ustack not all in the stacks file")
PY
)
expect_eq user_stack_hashes_resolve "$used" ok

# --- -o FILE.parquet beside -o DIR: the same passes, a row per kept thread in each; --host in its host column ---
rec=$tmp/both
run_capture taskset -c "$last_cpu" "$STK" threadstate -a -F 10 -d 2 -o "$rec.parquet" -o "$rec" --host db-7 -p "$wpid"
csv_rows=$(cat "$rec"/samples-*.csv 2>/dev/null | grep -vc '^time')
log_rows=$(sed -n 's/^threadstate: \([0-9]*\) events recorded, none lost$/\1/p' <<<"$ERR")
at_least eventlog_rows "${log_rows:-0}" 10 "rows in the event log (stderr: $ERR)"
expect_eq eventlog_rows_as_csv "${log_rows:-none}" "$csv_rows"
run_capture "$STK" report -f --event state --host db-7 "$rec.parquet"
expect_eq eventlog_host_rows "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s + 0 }')" "${log_rows:-none}"
spin_rows=$(printf '%s\n' "$OUT" | awk -v t="spin ($wpid/$spin)" 'index($0, t) == 1 { print $NF }')
expect_eq eventlog_spin_every_pass "${spin_rows:-none}" "$(cat "$rec"/samples-*.csv | grep -c "^[^,]*,$spin,$wpid,")"
run_capture "$STK" report -f --host db-8 "$rec.parquet"
expect_eq eventlog_other_host_none "$OUT" ""
# nothing shown, and stderr says why (exit 0: an empty answer is an answer)
expect_eq eventlog_other_host_said "$RC: $ERR" "0: report: no event of the recording passed the filters given (--from/--to, -p, -t, --event, --host, --span)"
bad host_invalid --host a/b -n 1

# --- -u with --unwind dwarf (the default): whole chains through a libc without
# frame pointers (tests/workloads/nofp.c, -O2): the sleeper's caller chain in
# nanosleep and the condition waiter's, which --unwind fp loses at libc ---
"$W/nofp" all 30 >"$tmp/nofp.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do npid=$(sed -n 's/^ready //p' "$tmp/nofp.out"); [ -n "$npid" ] && break; sleep 0.05; done
for unw in dwarf fp; do
    rec=$tmp/ustacks_$unw
    mkdir -p "$rec"
    run_capture "$STK" threadstate -v -a -u --unwind "$unw" -F 10 -d 2 -o "$rec" -p "$npid"
    expect_contains "user_stacks_${unw}_said" "$ERR" "unwind $unw"
    eval "ustacks_$unw=\$(cat \"\$rec\"/stacks-*.csv 2>/dev/null | grep ',user,')"
done
expect_contains user_stack_dwarf_sleeper "$ustacks_dwarf" "start_thread;sleeper;sleep_stage;"
expect_contains user_stack_dwarf_condwait "$ustacks_dwarf" "start_thread;cond_waiter;wait_stage;"
if printf '%s\n' "$ustacks_fp" | grep -q 'sleeper;sleep_stage;'; then
    fail user_stack_fp_loses_caller "--unwind fp kept sleep_stage (libc must have no frame pointers): $ustacks_fp"
else pass user_stack_fp_loses_caller; fi
kill "$npid" 2>/dev/null

# --- -u: threads blocked since before stk started have not switched out since: their stacks
# come from a snapshot at start (stk pmp's mechanism), and the table shows the innermost frames ---
"$W/pmp_threads" blocked 60 >"$tmp/blocked.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do bpid=$(sed -n 's/^ready //p' "$tmp/blocked.out"); [ -n "$bpid" ] && break; sleep 0.05; done
run_capture "$STK" threadstate -v -a -u -g comm,ustack -F 5 -n 2 -p "$bpid"
expect_contains user_stacks_at_start_said "$ERR" "threadstate: user stacks at start of"
for row in "piperead .*read,read_stage,pipe_reader,start_thread" "napping .*,__nanosleep,nap_stage,napper" \
           "epollwait .*epoll_wait,epoll_stage,epoller" "mutexwait .*lock_stage,locker,"; do
    if printf '%s\n' "$OUT" | grep -Eq "^ +1\.00  $row"; then pass "user_stack_at_start_${row%% *}"
    else fail "user_stack_at_start_${row%% *}" "$(printf '%s' "$OUT" | tail -12)"; fi
done
kill "$bpid" 2>/dev/null

# --- --cgroup: only the threads of the workload, moved into a cgroup of its own ---
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then cgbase=/sys/fs/cgroup; else cgbase=/sys/fs/cgroup/pids; fi
cg=$cgbase/stk-threadstate-test-$$
if mkdir "$cg" 2>/dev/null && echo "$wpid" >"$cg/cgroup.procs" 2>/dev/null; then
    run_capture "$STK" threadstate -a --cgroup "$cg" -g comm -n 3 -t 0
    comms=$(printf '%s\n' "$OUT" | awk '$1 ~ /^[0-9.]+$/ { print $2 }' | sort | tr '\n' ' ')
    expect_eq cgroup_filter "$comms" "busy1 busy2 busy3 napper piperead sleeper spin threads vforkwait "
    echo "$wpid" >"$cgbase/cgroup.procs"
else
    fail cgroup_filter "cannot create $cg and move the workload into it"
fi
rmdir "$cg" 2>/dev/null

# --- the default keeps active threads only: not the sleeper, stopped or idle main thread ---
rec=$tmp/active
mkdir -p "$rec"
run_capture "$STK" threadstate -F 10 -d 1.5 -o "$rec" -p "$wpid,$stopped"
# (The napper is active only in the moments it is awake, RUN or RUNQ, never asleep in nanosleep.)
comms=$(awk -F, 'FNR > 1 && $6 != "napper" { print $6 }' "$rec"/samples-*.csv | sort -u | tr '\n' ' ')
expect_eq active_rule "$comms" "busy1 busy2 busy3 piperead spin vforkwait "
napping=$(awk -F, '$6 == "napper" && $4 != "RUN" && $4 != "RUNQ"' "$rec"/samples-*.csv | wc -l)
expect_eq active_rule_napper_only_awake "$napping" 0
# Without -T the task iterator adds no hook on syscalls, and so knows no syscall time.
timed=$(awk -F, 'FNR > 1 && $9 != ""' "$rec"/samples-*.csv | wc -l)
expect_eq no_syscall_time_without_T "$timed" 0

# --- hour rotation, with the clock moved to 1.5 s before an hour ends ---
rec=$tmp/rotate
mkdir -p "$rec"
hour_end=$(( ($(date +%s) / 3600 + 5) * 3600 ))
STK_THREADSTATE_FAKE_EPOCH=$((hour_end - 2)) run_capture "$STK" threadstate -F 5 -d 3 -k -o "$rec" -p "$wpid"
files=$(cd "$rec" && ls samples-*.csv 2>/dev/null | tr '\n' ' ')
want="samples-$(date -u -d @$((hour_end - 3600)) +%Y-%m-%d-%H).csv samples-$(date -u -d @$hour_end +%Y-%m-%d-%H).csv "
expect_eq rotation_files "$files" "$want"
rot=$(python3 - "$rec" <<'PY'
import csv, glob, sys
paths = sorted(glob.glob(sys.argv[1] + "/samples-*.csv"))
bad = [] if paths else ["no samples files"]
for path in paths:
    hour = path.rsplit("-", 1)[1][:2]
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        bad.append(path + ": no rows")
    bad += [f"{path}: row at {r['time']}" for r in rows if r["time"][11:13] != hour]
    stacks = {r["hash"] for r in csv.DictReader(open(path.replace("samples-", "stacks-"), newline=""))}
    bad += [f"{path}: stack {r['kstack']} not in its stacks file" for r in rows if r["kstack"] and r["kstack"] not in stacks]
print("; ".join(bad) or "ok")
PY
)
expect_eq rotation_rows_in_their_hour "$rot" ok

# --- SIGTERM mid-recording: exit 0, every line whole ---
rec=$tmp/term
mkdir -p "$rec"
"$STK" threadstate -a -F 50 -o "$rec" >/dev/null 2>&1 &
sp=$!
sleep 1.5
kill -TERM $sp
wait $sp
rc=$?
expect_eq sigterm_exit_status "$rc" 0
whole=$(python3 - "$rec" <<'PY'
import csv, glob, sys
paths = glob.glob(sys.argv[1] + "/samples-*.csv")
if not paths:
    print("no samples files"); sys.exit()
for path in paths:
    data = open(path, newline="").read()
    if not data.endswith("\n"):
        print(path + ": last line cut"); sys.exit()
    widths = {len(r) for r in csv.reader(data.splitlines())}
    if widths != {19}:
        print(f"{path}: row widths {widths}"); sys.exit()
print("ok")
PY
)
expect_eq sigterm_rows_whole "$whole" ok

# --- kill -9 leaves no program behind (by the ids this stk held) ---
"$STK" threadstate -F 5 >/dev/null 2>&1 &
kp=$!
sleep 1.5
kill9_leaves_nothing "$kp"
