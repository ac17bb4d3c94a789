#!/bin/bash
# needs: root (task iterator BPF programs, snapshots of other processes' threads), tmux
# stk top driven in a tmux pane over threads in known states: tests/workloads/threads
# (spin: RUN; vforkwait: DISK in wait_for_vfork_done) and tests/workloads/pmp_threads
# (piperead blocked in read() on a pipe, its chain pipe_reader -> read_stage -> read,
# built without frame pointers). Keys are sent with send-keys and the screen read
# with capture-pane: the states and syscalls of the known threads, a search that
# narrows to one, Enter down to the blocked thread's stack, a resize, and q, Ctrl-C,
# SIGTERM and a crash each leaving the terminal as it was (main screen, cursor shown).
# The terminal descriptions are stk's own: TERMINFO_DIRS points nowhere.
SUITE=top
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
tmp=$(mktemp -d)
pids=()
# Each start_top takes a server of its own: a new session on the socket of a server
# that kill-server is still taking down dies with that server (an empty pane).
starts=0
sock=stk-test-$$-$starts
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
    local i
    for i in $(seq 0 "$starts"); do tmux -L "stk-test-$$-$i" -f /dev/null kill-server 2>/dev/null; done
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v tmux >/dev/null; then
    fail tmux_installed "tmux is not installed (ci/install-build-tools.sh installs it)"
    exit 0
fi

# --- bad input: one line, exit 2 ---
bad() { expect_bad_input "$1" "$2" "$STK" top "${@:3}"; } # NAME NEEDLE ARGS...
bad not_a_terminal "stdout is not a terminal: stk top draws a full screen; for tables in a file or a pipe use stk threadstate"
bad frequency "-F 0: expected a frequency" -F 0
bad delay "-d 0.01: expected a number of seconds, at least 0.1" -d 0.01
bad group "unknown column 'nosuch'" -g state,nosuch
bad pid "-p 999999999" -p 999999999
bad cgroup "not a cgroup directory" --cgroup /nonexistent
bad option "unknown option '--frobnicate'" --frobnicate
bad replay_pid "a recording is replayed as it was captured" -p 1 /nonexistent.parquet
run_capture "$STK" top --help
expect_contains help "$OUT" "usage: stk top"

# --- the known threads ---
"$W/threads" known >"$tmp/threads.out" 2>&1 &
tpid=$!
pids+=($tpid)
for _ in $(seq 100); do grep -q '^ready$' "$tmp/threads.out" && break; sleep 0.05; done
start_workload "$W/pmp_threads" blocked 300
ppid=$WPID
piperead=$(thread_by_comm "$ppid" piperead)
[ -n "$piperead" ] && grep -q '^ready$' "$tmp/threads.out" && pass workloads_ready ||
    fail workloads_ready "threads: $(cat "$tmp/threads.out"); pmp_threads: $(cat "$WOUT")"

pane() { tm capture-pane -p -t top; }
# wait_pane NEEDLE [SECONDS]: until the pane shows NEEDLE (a fixed string); 1 when it never does
wait_pane() {
    local i
    for i in $(seq $((${2:-15} * 10))); do
        pane 2>/dev/null | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    return 1
}
# expect_pane NAME NEEDLE [SECONDS]
expect_pane() {
    if wait_pane "$2" "${3:-15}"; then pass "$1"; else fail "$1" "'$2' not on the screen: $(pane | head -c 1500)"; fi
}
# start_top ARGS...: stk top in a new 100x30 pane; when it ends the pane says how
start_top() {
    tm kill-server 2>/dev/null
    starts=$((starts + 1))
    sock=stk-test-$$-$starts
    tm new-session -d -s top -x 100 -y 30 \
        "env TERMINFO=/nonexistent TERMINFO_DIRS=/nonexistent HOME=$tmp $* '$STK' top $TOP_ARGS; echo \"top exited rc=\$?\"; sleep 600"
}
# terminal_restored NAME: the pane left the alternate screen and shows its cursor
terminal_restored() {
    local state
    state=$(tm display-message -p -t top '#{alternate_on} #{cursor_flag}')
    expect_eq "$1" "$state" "0 1"
}

TOP_ARGS="-p $tpid,$ppid -F 10 -d 0.5"
start_top
expect_pane draws_title "stk top" 20
expect_pane key_bar "Enter threads  / search"
expect_pane spinner_shown " spin"
screen=$(pane)
# the groups: state, user, comm, syscall, wchan
# (RUNQ when the host's CPUs are busy with other work)
if printf '%s\n' "$screen" | grep -Eq '^ *[0-9.]+ +1 +RUNQ? +root +spin( |$)'; then pass spin_row; else fail spin_row "$screen"; fi
# in clone(CLONE_VFORK), waiting for the child (the wait channel: the first frame past the scheduler's own)
if printf '%s\n' "$screen" | grep -Eq '^ *[0-9.]+ +1 +DISK +root +vforkwait +clone3? +[a-z_]*(vfork|clone)'; then
    pass disk_row
else
    fail disk_row "$screen"
fi
expect_contains host_line "$screen" "Threads "
# blocked reading a pipe is active (waiting for work); waiting on a condition variable is not, until 'a'
if printf '%s\n' "$screen" | grep -Eq 'SLEEP +root +piperead +read +[a-z_]*pipe_read'; then
    pass pipe_reader_row
else
    fail pipe_reader_row "$screen"
fi
expect_eq idle_sleeper_hidden "$(printf '%s\n' "$screen" | grep -c condwait)" 0
tm send-keys -t top a
expect_pane all_threads_title "all threads"
expect_pane idle_sleeper_with_all "condwait"
if printf '%s\n' "$(pane)" | grep -Eq 'SLEEP +root +condwait +futex'; then pass idle_sleeper_syscall; else fail idle_sleeper_syscall "$(pane)"; fi
# a filter keeps one process's threads (the threads workload has a piperead too), a search narrows to the one group
tm send-keys -t top f p i d = $(printf '%s' "$ppid" | sed 's/./& /g') Enter
expect_pane filter_said "filter pid=$ppid"
for _ in $(seq 150); do pane | grep -qE ' (spin|vforkwait) ' || break; sleep 0.1; done
expect_eq filter_keeps_process "$(pane | grep -cE ' (spin|vforkwait) ')" 0
expect_pane filter_keeps_piperead "piperead"
tm send-keys -t top / p i p e r e a d Enter
expect_pane search_said 'rows with "piperead": 1 of'
screen=$(pane)
expect_eq search_narrows "$(printf '%s\n' "$screen" | grep -cE ' (spin|vforkwait|condwait|napping) ')" 0
# Enter: its threads; Enter again: the thread's stack now and its last minute
tm send-keys -t top Enter
expect_pane threads_screen "threads of  STATE=SLEEP"
if wait_pane "threads of" && pane | grep -Eq "^ *$piperead +$ppid +[0-9.]+ +SLEEP "; then
    pass threads_screen_row
else
    fail threads_screen_row "$(pane)"
fi
tm send-keys -t top Enter
expect_pane thread_screen "thread $piperead of process $ppid"
expect_pane stack_taken "stack at " 20
screen=$(pane)
frames=$(printf '%s\n' "$screen" | awk '/^ *[0-9]+ +[^ ]/ { print $2 }' | tr '\n' ',')
expect_contains stack_kernel_wait "$frames" "pipe_read"
expect_contains stack_user_chain "$frames" "read_stage,pipe_reader,start_thread"
expect_contains last_minute "$screen" "last minute"
if printf '%s\n' "$screen" | grep -Eq 'last minute +[.S]*S +now'; then pass last_minute_sleeping; else fail last_minute_sleeping "$screen"; fi
# a resize redraws at the new size: 80x24, the key bar on the last line
tm resize-window -t top -x 80 -y 24
sleep 1
screen=$(pane)
expect_eq resized_lines "$(printf '%s\n' "$screen" | wc -l)" 24
expect_contains resized_key_bar "$(printf '%s\n' "$screen" | tail -1)" "Esc back"
# Esc twice: back to the groups
tm send-keys -t top Escape
expect_pane back_to_threads "threads of  STATE=SLEEP"
tm send-keys -t top Escape
sleep 0.3
tm send-keys -t top Escape
expect_pane back_to_groups "Enter threads  / search"
# q quits and gives the terminal back
tm send-keys -t top q
expect_pane quit_rc "top exited rc=0"
terminal_restored quit_restores

# Ctrl-C and SIGTERM end it the same way; a crash gives the terminal back too
start_top
wait_pane "Enter threads" 20
tm send-keys -t top C-c
expect_pane ctrl_c_rc "top exited rc=0"
terminal_restored ctrl_c_restores
start_top
wait_pane "Enter threads" 20
pkill -TERM -f "$STK top $TOP_ARGS"
expect_pane sigterm_rc "top exited rc=0"
terminal_restored sigterm_restores
start_top
wait_pane "Enter threads" 20
pkill -SEGV -f "$STK top $TOP_ARGS"
expect_pane crash_rc "top exited rc=139"
terminal_restored crash_restores
# nothing left attached after the crash's exit
sleep 1
left=$(pgrep -f "$STK top $TOP_ARGS" | wc -l)
expect_eq crash_no_process "$left" 0

# NO_COLOR: attributes only (reverse, bold), no colours
start_top NO_COLOR=1
wait_pane "Enter threads" 20
sleep 1
if tm capture-pane -p -e -t top | grep -Eq $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|38;|48;)'; then
    fail no_color "colour sequences on the screen"
else
    pass no_color
fi
if tm capture-pane -p -e -t top | grep -q $'\e\\[7m'; then pass no_color_reverse; else fail no_color_reverse "no reverse video for the bars"; fi
tm send-keys -t top q
expect_pane no_color_quit "top exited rc=0"
# with colours (the default), the bars are coloured
start_top
wait_pane "Enter threads" 20
sleep 1
if tm capture-pane -p -e -t top | grep -Eq $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7])'; then pass colors; else fail colors "no colour"; fi
tm send-keys -t top q
expect_pane colors_quit "top exited rc=0"

# --- replay: a series stk record wrote, stepped through with the same screens ---
"$STK" record -p "$tpid" -e state:2 --rotate 1s -o "$tmp/series/" 4 >/dev/null 2>"$tmp/record.err" ||
    fail replay_recorded "$(cat "$tmp/record.err")"
files=$(ls "$tmp/series/" | grep -c '\.parquet$')
at_least replay_series_files "$files" 3 "files in the series"
TOP_ARGS="-d 1 $tmp/series/"
start_top
expect_pane replay_title "stk top  replay  " 20
expect_pane replay_keys "<- -> step  t time"
screen=$(pane)
first=$(printf '%s\n' "$screen" | sed -n 's/^stk top  replay  \([0-9-]* [0-9:.]*\) UTC.*/\1/p')
if printf '%s\n' "$screen" | grep -Eq '^ *[0-9.]+ +1 +DISK +vforkwait +clone3? '; then pass replay_disk_row; else fail replay_disk_row "$screen"; fi
if printf '%s\n' "$screen" | grep -Eq "^[23] sample passes in this step"; then pass replay_passes; else fail replay_passes "$screen"; fi
# right: one step (1 s) later
tm send-keys -t top Right
want=$(date -u -d "$first UTC + 1 second" '+%Y-%m-%d %H:%M:%S.%3N' 2>/dev/null)
expect_pane replay_step_right "replay  $want UTC" 5
tm send-keys -t top Left
expect_pane replay_step_left "replay  $first UTC" 5
# t: to 2 s after the first state
tm send-keys -t top t 2 Enter
want=$(date -u -d "$first UTC + 2 seconds" '+%Y-%m-%d %H:%M:%S.%3N' 2>/dev/null)
expect_pane replay_goto "replay  $want UTC" 5
# a group's threads, then one thread's states before this step (two a second, the spinner's queued or running)
tm send-keys -t top / s p i n Enter Enter
expect_pane replay_threads "threads of  STATE=RUN"
tm send-keys -t top Enter
expect_pane replay_thread "of process $tpid  spin"
if pane | grep -Eq 'last minute +[.RQ]*[RQ][RQ][RQ] +now'; then pass replay_last_minute; else fail replay_last_minute "$(pane)"; fi
expect_pane replay_no_stack "a recording's thread states hold no stacks"
tm send-keys -t top q
expect_pane replay_quit "top exited rc=0"
terminal_restored replay_restores
