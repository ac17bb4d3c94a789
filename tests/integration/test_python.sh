#!/bin/bash
# needs: root (BPF, the memory of other processes, chroot, mmdebstrap, ab)
# Interpreter frames (core/runtime/, bpf/unwind.bpf.c): Python functions in
# the stacks of profile, offcputime, pmp, stackcount, threadstate -u, the
# event log and stk report, each where the interpreter ran it, with file and
# line, on Debian's python3.11 (this host; its executable, and its
# libpython3.11.so in a program embedding it), 3.13 (a Debian 13 root) and 3.14
# (a sid root; Debian has no 3.12 to test, and stk skips it), the roots made
# with mmdebstrap and cached under $STK_TEST_CACHE (/var/cache/stk-test), the
# 3.13 one run in a PID namespace of its own too, and under -X perf_jit
# (its jitdump's names and CFI: the user-space walk reaches Py_RunMain). Known chains asserted name
# by name (recursion 40 deep, Python -> C -> Python through sorted(key=),
# a thread blocked on a lock, one sleeping in a method), pmp against what the
# process says of itself (sys._current_frames(), 203 threads), 95% of a CPU loop's
# samples with its functions in order, in the kernel walk and by user space;
# a web server under load (http.server served to apache2-utils' ab, a server
# thread per connection kept, and a new one per request) whose request
# handlers profile and offcputime name, in the shares the server counts;
# the 3.11 layout against the DWARF of python3.11-dbg; a hostile fake
# interpreter (cycles, huge names, unmapped and changing pointers, a lying
# _Py_DebugOffsets, 3.12, threads made late on no list) that must not hang
# stk, crash it or grow it.
SUITE=python
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tests/workloads
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../workloads" && pwd)
cache=${STK_TEST_CACHE:-/var/cache/stk-test}
tmp=$(mktemp -d)
workloads_begin

# start_py NAME CMD...: runs CMD in the background until it prints "ready";
# PYPID: the Python process (under unshare --fork, the child), PYOUT its output.
start_py() {
    local name=$1 out=$tmp/$1.out
    shift
    : >"$out"
    "$@" >"$out" 2>&1 &
    pids+=($!)
    PYOUT=$out PYPID=
    for _ in $(seq 200); do
        grep -q '^ready' "$out" && break
        sleep 0.05
    done
    PYPID=$!
    [ "$1" = unshare ] && PYPID=$(pgrep -P "$!" | head -1)
    grep -q '^ready' "$out" || { fail "${name}_started" "$* printed no ready: $(head -c 300 "$out")"; return 1; }
}

# A Debian root with a Python, cached: NAME SUITE PACKAGE -> ROOT (empty when it cannot be made).
python_root() {
    local dir=$cache/python-$1
    ROOT=
    if [ ! -f "$dir/.stk-root-done" ]; then
        need_command mmdebstrap mmdebstrap || { skip "$1_root" "no mmdebstrap, and apt-get could not install it"; return 1; }
        rm -rf "$dir" && mkdir -p "$cache"
        # sid's Release files carry a validity date a host clock may be past
        if ! mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' --include="$3" "$2" "$dir" \
            >"$tmp/mmdebstrap-$1.log" 2>&1; then
            skip "$1_root" "mmdebstrap $2 failed: $(tail -2 "$tmp/mmdebstrap-$1.log" | tr '\n' ' ')"
            rm -rf "$dir"
            return 1
        fi
        touch "$dir/.stk-root-done"
    fi
    mkdir -p "$dir/stk-test"
    cp "$src"/py_*.py "$dir/stk-test/"
    ROOT=$dir
}

RECURSE=$(printf ';recurse%.0s' $(seq 41))
# expect_match NAME TEXT REGEX (extended, over frames joined by ';': pmp's commas become ';')
expect_match() {
    if printf '%s\n' "$2" | tr ',' ';' | grep -Eq "$3"; then pass "$1"; else
        fail "$1" "no /$3/ in: $(printf '%s' "$2" | tr ',' ';' | head -c 600)"; fi
}
# check_chains LABEL TEXT (folded or pmp lines): the known chains of py_threads.py, name by name.
check_chains() {
    # 41 calls of recurse (n = 40 down to 0) under <module>, then the method sleeping
    expect_match "${1}_recursion_40_deep" "$2" "<module>$RECURSE;Sleeper\.nap;"
    expect_match "${1}_sleeping_in_a_method" "$2" ';Sleeper\.nap;([^;]*;)*clock_nanosleep'
    # Python -> C -> Python: sorted's C code between sorter and the key function, Thread.run above
    expect_match "${1}_python_c_python" "$2" 'Thread\.run;([^;]*;)*sorter;([^;]*;)*PyObject_CallOneArg;([^;]*;)*by_key;'
    expect_match "${1}_blocked_on_a_lock" "$2" 'Thread\.run;([^;]*;)*wait_lock;([^;]*;)*(futex|_PySemaphore_Wait|PyThread_acquire_lock)'
}

# check_cpu LABEL FOLDED: at least 95% of the loop's samples hold <module>;outer;middle;leaf.
check_cpu() {
    local label=$1 text=$2 total whole
    total=$(printf '%s\n' "$text" | awk '{ n += $NF } END { print n + 0 }')
    whole=$(printf '%s\n' "$text" | awk '/<module>;outer;middle;leaf/ { n += $NF } END { print n + 0 }')
    if [ "$total" -ge 50 ] && [ $((whole * 100)) -ge $((total * 95)) ]; then
        pass "${label}_cpu_loop_in_order"
    else
        fail "${label}_cpu_loop_in_order" "$whole of $total samples hold <module>;outer;middle;leaf: $(printf '%s' "$text" | sort -t' ' -k2 -n | tail -3 | head -c 800)"
    fi
    echo "NOTE python/${label}_cpu_loop: $whole of $total samples hold the loop's functions in order"
}

# check_pmp_self LABEL PID SELF_FILE: pmp -t's Python frames of each thread, root first, as the process lists its own.
check_pmp_self() {
    local label=$1 p=$2 self=$3 tids names out bad=0 tid chain got
    tids=$(ls /proc/"$p"/task | paste -sd, -)
    names=$(cut -d' ' -f2 "$self" | tr ';' '\n' | sort -u | paste -sd'|' -)
    run_capture "$STK" pmp -U -f -t "$tids"
    expect_eq "${label}_pmp_self_rc" "$RC" 0
    while read -r tid chain; do
        # this thread's line (comm (pid/tid);frames... count), its Python frames only
        got=$(printf '%s\n' "$OUT" | grep " ($p/$tid);" | sed 's/^[^;]*;//; s/ [0-9]*$//' | tr ';' '\n' |
            grep -Ex "$names" | paste -sd';' -)
        [ "$got" = "$chain" ] || { bad=$((bad + 1)); echo "  thread $tid: stk: $got; the process: $chain"; }
    done <"$self"
    [ "$(wc -l <"$self")" -ge 203 ] && [ "$bad" -eq 0 ] && pass "${label}_pmp_as_the_process_says" ||
        fail "${label}_pmp_as_the_process_says" "$bad of $(wc -l <"$self") threads differ from sys._current_frames()"
}

# check_lines LABEL TEXT FILE: --lines puts Python frames at their source lines.
check_lines() {
    local label=$1 text=$2 file=$3 nap rec
    nap=$(grep -n 'time.sleep(pause)' "$src/py_threads.py" | head -1 | cut -d: -f1)
    rec=$(grep -n 'return recurse(n - 1)' "$src/py_threads.py" | cut -d: -f1)
    expect_contains "${label}_line_of_a_method" "$text" "Sleeper.nap at $file:$nap"
    expect_contains "${label}_line_of_a_call" "$text" "recurse at $file:$rec"
}

# One Python, every applet: LABEL PREFIX... (the command that runs python on a script path; FILE the path it sees)
check_python() {
    local label=$1 file=$2 wl=$3
    shift 3
    local out
    # pmp (user space reads the frames), against what the process says of itself
    rm -f "$ROOTDIR$wl/self.txt"
    start_py "$label-still" "$@" "$wl/py_threads.py" still "$wl/self.txt" 200 || return
    local p=$PYPID self=$tmp/$label-self.txt
    for _ in $(seq 100); do [ -s "$ROOTDIR$wl/self.txt" ] && break; sleep 0.1; done
    cp "$ROOTDIR$wl/self.txt" "$self" 2>/dev/null
    run_capture "$STK" pmp -p "$p" -f -v
    expect_eq "${label}_pmp_rc" "$RC" 0
    check_chains "${label}_pmp" "$OUT"
    expect_contains "${label}_pmp_names_version" "$ERR" "pid $p: python $VERSION in "
    if [ -s "$self" ]; then check_pmp_self "$label" "$p" "$self"; else
        fail "${label}_pmp_as_the_process_says" "the workload wrote no sys._current_frames() report"; fi
    run_capture "$STK" pmp -p "$p" --format text --lines
    check_lines "${label}_pmp" "$OUT" "$file"
    kill "$p" 2>/dev/null
    # offcputime: the kernel walk (cfi) and user space (dwarf)
    start_py "$label-wake" "$@" "$wl/py_threads.py" wake || return
    p=$PYPID
    run_capture "$STK" offcputime -p "$p" -f -v 2
    expect_eq "${label}_offcputime_rc" "$RC" 0
    check_chains "${label}_offcputime" "$OUT"
    expect_contains "${label}_offcputime_in_the_kernel" "$ERR" "interpreted frames in the kernel: "
    run_capture "$STK" offcputime --unwind dwarf -p "$p" -f 2
    check_chains "${label}_offcputime_dwarf" "$OUT"
    kill "$p" 2>/dev/null
    # profile: the CPU loop, in the kernel and by user space
    start_py "$label-cpu" "$@" "$wl/py_cpu.py" || return
    p=$PYPID
    run_capture "$STK" profile -p "$p" -F 199 -f 3
    check_cpu "${label}_profile" "$OUT"
    run_capture "$STK" profile --unwind dwarf -p "$p" -F 199 -f 2
    check_cpu "${label}_profile_dwarf" "$OUT"
    kill "$p" 2>/dev/null
}

# --- Debian 12's python3.11, on this host ---
mkdir -p "$tmp/wl" && cp "$src"/py_*.py "$tmp/wl/"
if [ ! -x /usr/bin/python3.11 ]; then
    skip py311 "no /usr/bin/python3.11 (Debian 12's python3) on this host"
else
    ROOTDIR= VERSION=3.11
    check_python py311 "$tmp/wl/py_threads.py" "$tmp/wl" /usr/bin/python3.11
    # the other applets, the event log and stk report, on the same threads
    start_py py311-wake /usr/bin/python3.11 "$tmp/wl/py_threads.py" wake && {
        p=$PYPID
        run_capture "$STK" stackcount -p "$p" -U -f -D 2 /usr/bin/python3.11:PyObject_CallOneArg
        expect_match py311_stackcount_chain "$OUT" 'Thread\.run;([^;]*;)*sorter;([^;]*;)*PyObject_CallOneArg '
        rm -rf "$tmp/ts"
        run_capture "$STK" threadstate -p "$p" -u -a -d 2 -i 2 -o "$tmp/ts"
        stacks=$(cat "$tmp"/ts/stacks-*.csv 2>/dev/null)
        expect_contains py311_threadstate_u "$stacks" "Sleeper.nap;"
        expect_contains py311_threadstate_u_c_python "$stacks" "PyObject_CallOneArg;_PyFunction_Vectorcall;by_key"
        run_capture "$STK" offcputime -p "$p" -o "$tmp/py.parquet" 2
        expect_eq py311_eventlog_rc "$RC" 0
        run_capture "$STK" report "$tmp/py.parquet" -f
        check_chains py311_report "$OUT"
        # pprof carries each Python frame's function, file and line: written by the capture, and rendered from the recording
        run_capture "$STK" offcputime -p "$p" -o "$tmp/py.pb.gz" 2
        run_capture "$STK" report "$tmp/py.parquet" -o "$tmp/report.pb.gz"
        schema=/usr/share/gocode/src/github.com/google/pprof/proto
        line=$(grep -n 'time.sleep(pause)' "$src/py_threads.py" | sed -n 2p | cut -d: -f1)
        for pb in py report; do
            if zcat "$tmp/$pb.pb.gz" | protoc --decode=perftools.profiles.Profile --proto_path="$schema" \
                    "$schema/profile.proto" >"$tmp/$pb.decoded" 2>"$tmp/pb.err"; then
                decoded=$(cat "$tmp/$pb.decoded")
                expect_contains "py311_${pb}_pprof_function" "$decoded" '"by_key"'
                expect_contains "py311_${pb}_pprof_file" "$decoded" "\"$tmp/wl/py_threads.py\""
                expect_contains "py311_${pb}_pprof_line" "$decoded" "line: $line"
            else
                fail "py311_${pb}_pprof_decodes" "$(cat "$tmp/pb.err")"
            fi
        done
        kill "$p" 2>/dev/null
    }
fi

# --- a web server under load: Debian's python3.11 (tests/workloads/py_web.py) serving apache2-utils' ab ---
# web_stats PORT: "CHECKSUM_CPU PROCESS_CPU", the CPU seconds the server counted in checksum and in all
web_stats() { { printf 'GET /stats HTTP/1.0\r\n\r\n' >&3 && tail -1 <&3; } 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null
# web_case LABEL POINTS WAITED_US [-k]: two clients on the CPU path, four on the waiting one; with -k each keeps its
# connection (a server thread each), without it each request has a new connection and a new server thread
# (25 to 50 ms long: the kernel walk finds its state on the interpreter's list). profile's share of the
# samples in the handler chain within POINTS of the CPU share the server counts in checksum; offcputime
# names at least WAITED_US of the four waiting clients' 8 s in the waiting chain.
web_case() {
    local label=$1 points=$2 least=$3 keep=$4 p port ab_cpu ab_wait sp s0 s1 chain total named self share waited
    start_py "$label" /usr/bin/python3.11 "$tmp/wl/py_web.py" || return
    p=$PYPID port=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$PYOUT")
    ab -q -r $keep -c 2 -t 60 -n 10000000 "http://127.0.0.1:$port/cpu" >"$tmp/ab-cpu.out" 2>&1 &
    ab_cpu=$!
    ab -q -r $keep -c 4 -t 60 -n 10000000 "http://127.0.0.1:$port/wait" >"$tmp/ab-wait.out" 2>&1 &
    ab_wait=$!
    pids+=("$ab_cpu" "$ab_wait")
    sleep 0.5
    # profile: the CPU path's share of the samples, in order under its handler, as the process counts it
    "$STK" profile -p "$p" -F 199 -f -v 3 >"$tmp/web-profile.out" 2>"$tmp/web-profile.err" &
    sp=$!
    wait_attached "$sp"
    s0=$(web_stats "$port")
    wait "$sp"
    s1=$(web_stats "$port")
    chain='BaseHTTPRequestHandler\.handle_one_request;Handler\.do_GET;render_page;checksum'
    total=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/web-profile.out")
    named=$(re=$chain awk '$0 ~ ENVIRON["re"] { n += $NF } END { print n + 0 }' "$tmp/web-profile.out")
    self=$(awk -v a="$s0" -v b="$s1" 'BEGIN { split(a, x, " "); split(b, y, " ")
        if (y[2] > x[2] && x[1] != "") printf "%.0f", 100 * (y[1] - x[1]) / (y[2] - x[2]); else print -1 }')
    share=$((total ? named * 100 / total : 0))
    if [ "$total" -ge 100 ] && [ "$self" -ge 50 ] && [ $((share - self)) -le "$points" ] && [ $((self - share)) -le "$points" ]; then
        pass "${label}_profile_handler"
    else
        fail "${label}_profile_handler" "$named of $total samples ($share%) hold $chain; the process spent $self% of its CPU time in checksum (stats '$s0' then '$s1'): $(sort -t' ' -k2 -n "$tmp/web-profile.out" | tail -3 | head -c 800); $(grep 'interpreted frames in the kernel' "$tmp/web-profile.err")"
    fi
    echo "NOTE python/${label}_profile: $named of $total samples ($share%) in Handler.do_GET;render_page;checksum; the process counted $self% of its CPU time in checksum; $(grep -o '[0-9]* thread states found by the walk' "$tmp/web-profile.err")"
    # offcputime: the waiting path under its handler, and its clients' four waits' worth of time
    run_capture "$STK" offcputime -p "$p" -f 2
    expect_match "${label}_offcputime_handler" "$OUT" 'Handler\.do_GET;wait_for_turn;Condition\.wait;([^;]*;)*(futex|PyThread_acquire_lock)'
    waited=$(printf '%s\n' "$OUT" | awk '/Handler\.do_GET;wait_for_turn;Condition\.wait;/ { n += $NF } END { print n + 0 }')
    # 4 clients for 2 s: 8 s at most (a wait is 50 ms: one begun before the capture adds little)
    [ "$waited" -ge "$least" ] && [ "$waited" -le 8500000 ] && pass "${label}_offcputime_waits" ||
        fail "${label}_offcputime_waits" "$waited us in wait_for_turn under Handler.do_GET, want $least us to 8.5 s: $(printf '%s' "$OUT" | sort -t' ' -k2 -n | tail -3 | head -c 800)"
    echo "NOTE python/${label}_offcputime: $waited us waiting in Handler.do_GET;wait_for_turn;Condition.wait (4 clients, 2 s)"
    kill "$ab_cpu" "$ab_wait" "$p" 2>/dev/null
    wait "$ab_cpu" "$ab_wait" "$p" 2>/dev/null
}
if [ -x /usr/bin/python3.11 ]; then
    if ! need_command ab apache2-utils; then
        skip py311_web "no ab, and apt-get could not install apache2-utils (ci/install-build-tools.sh installs it)"
    else
        web_case py311_web 10 4000000 -k
        # a thread per request, sampled before user space could place its state and gone before it would:
        # the kernel walk finds it on the list (each request's connection costs time: fewer waits in 2 s)
        web_case py311_web_thread_per_request 15 3000000
    fi
fi

# Python embedded in a program, the interpreter on libpython3.11.so (built here: it needs python3.11-dev's headers)
if [ -x /usr/bin/python3.11 ]; then
    [ -x /usr/bin/python3.11-config ] || { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends python3.11-dev; } >/dev/null 2>&1
    if [ -x /usr/bin/python3.11-config ] &&
        gcc -O2 -o "$tmp/py_embed" "$src/py_embed.c" $(/usr/bin/python3.11-config --embed --cflags --ldflags) 2>"$tmp/cc.err"; then
        start_py py311-embed "$tmp/py_embed" "$tmp/wl/py_cpu.py" && {
            run_capture "$STK" profile -p "$PYPID" -F 199 -f -v 2
            expect_contains py311_embedded_found "$ERR" "python 3.11 in /usr/lib/"
            check_cpu py311_embedded "$OUT"
            kill "$PYPID" 2>/dev/null
        }
    else
        skip py311_embedded "no python3.11-dev to build a program embedding libpython3.11: $(head -c 300 "$tmp/cc.err" 2>/dev/null)"
    fi
fi

# a process that makes a thread after stk attached (its state placed when the walk asks), runs its loop
# there and exits before the results: its frames were named while it lived
if [ -x /usr/bin/python3.11 ]; then
    /usr/bin/python3.11 "$tmp/wl/py_cpu.py" 2 >/dev/null &
    run_capture "$STK" profile -p "$!" -F 199 -f -v 4
    total=$(printf '%s\n' "$OUT" | grep 'Thread\.run;\|_PyEval_EvalFrameDefault' | awk '{ n += $NF } END { print n + 0 }')
    named=$(printf '%s\n' "$OUT" | grep -E 'Thread\.run;([^;]*;)*outer;middle;leaf' | awk '{ n += $NF } END { print n + 0 }')
    [ "$total" -ge 100 ] && [ $((named * 100)) -ge $((total * 90)) ] && pass py311_exited_named_late_thread ||
        fail py311_exited_named_late_thread "$named of $total samples of a thread made late, in a process gone by the results, name its functions: $(printf '%s' "$ERR" | grep -i interpreted)"
    echo "NOTE python/py311_exited_named_late_thread: $named of $total samples"
fi

# --- the 3.11 layout against the DWARF of Debian's python3.11-dbg (the same version's python3.11-minimal names its debug file) ---
if ! command -v apt-get >/dev/null || ! apt-cache show python3.11-dbg >/dev/null 2>&1; then
    skip py311_layout "apt knows no python3.11-dbg here (Debian 12's)"
else
    dbg=$cache/python3.11-dbg
    ver=$(apt-cache policy python3.11-dbg | sed -n 's/^ *Candidate: //p')
    if [ ! -f "$dbg/$ver.done" ]; then
        rm -rf "$dbg" && mkdir -p "$dbg"
        (cd "$dbg" && apt-get download "python3.11-dbg=$ver" "python3.11-minimal=$ver" >"$tmp/dl.log" 2>&1 &&
            for d in *.deb; do dpkg-deb -x "$d" root || exit 1; done && rm -f ./*.deb) && touch "$dbg/$ver.done"
    fi
    id=$(readelf -n "$dbg/root/usr/bin/python3.11" 2>/dev/null | sed -n 's/^ *Build ID: //p')
    debug=$dbg/root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    if [ -n "$id" ] && [ -f "$debug" ]; then
        "$BUILD/tests/python_layout_dwarf" "$debug" "$SUITE"
    else
        fail py311_layout "python3.11-dbg $ver: no debug file for python3.11 (build ID '$id'): $(tail -2 "$tmp/dl.log" 2>/dev/null)"
    fi
fi

# --- Debian 13's python3.13 in a root of its own (chroot), and in a PID namespace of its own too ---
if python_root trixie trixie python3; then
    ROOTDIR=$ROOT VERSION=3.13
    check_python py313 /stk-test/py_threads.py /stk-test chroot "$ROOT" python3
    # -X perf: trampolines with neither CFI nor a frame pointer end the native walk; the runs above it follow
    start_py py313-xperf chroot "$ROOT" python3 -X perf /stk-test/py_cpu.py && {
        run_capture "$STK" profile -p "$PYPID" -F 199 -f 2
        total=$(printf '%s\n' "$OUT" | awk '{ n += $NF } END { print n + 0 }')
        named=$(printf '%s\n' "$OUT" | grep -E '<module>;([^;]*;)*outer;([^;]*;)*middle;([^;]*;)*leaf' |
            awk '{ n += $NF } END { print n + 0 }')
        [ "$total" -ge 50 ] && [ $((named * 100)) -ge $((total * 90)) ] && pass py313_xperf_chain ||
            fail py313_xperf_chain "$named of $total samples hold <module>;...;outer;...;middle;...;leaf: $(printf '%s' "$OUT" | head -3)"
        expect_contains py313_xperf_trampoline_named "$OUT" "py::leaf:/stk-test/py_cpu.py;leaf"
        kill "$PYPID" 2>/dev/null
    }
    # -X perf_jit: /tmp/jit-PID.dump names each trampoline and gives its CFI; the user-space walk goes through them
    # to the native frames below (without the jitdump's CFI none of 596 samples reached Py_RunMain, with it all)
    start_py py313-xperfjit chroot "$ROOT" python3 -X perf_jit /stk-test/py_cpu.py flush && {
        share() { # NAME REGEX: at least 90% of $OUT's samples (of 50 or more) match REGEX
            local total n
            total=$(printf '%s\n' "$OUT" | awk '{ n += $NF } END { print n + 0 }')
            n=$(printf '%s\n' "$OUT" | grep -E -- "$2" | awk '{ n += $NF } END { print n + 0 }')
            [ "$total" -ge 50 ] && [ $((n * 100)) -ge $((total * 90)) ] && pass "$1" ||
                fail "$1" "$n of $total samples match $2: $(printf '%s' "$OUT" | sort -t' ' -k2 -rn | head -2)"
        }
        tramp='py::<module>:/stk-test/py_cpu.py;<module>;([^;]*;)*py::outer:/stk-test/py_cpu.py;outer;([^;]*;)*py::middle:/stk-test/py_cpu.py;middle;([^;]*;)*py::leaf:/stk-test/py_cpu.py;leaf'
        run_capture "$STK" profile -p "$PYPID" --unwind dwarf -F 199 -f -v 2
        share py313_xperfjit_dwarf_named "$tramp"
        share py313_xperfjit_dwarf_reaches_main "^python3;_start;([^;]*;)*Py_RunMain;([^;]*;)*$tramp"
        expect_match py313_xperfjit_said "$ERR" "jitdump [^ ]*/tmp/jit-$PYPID\.dump: [0-9]+ code loads named; [1-9][0-9]* ranges with CFI"
        # the kernel's walk has no tables for JIT code: it stops at the first, named; the runs above it follow
        run_capture "$STK" profile -p "$PYPID" -F 199 -f 2
        share py313_xperfjit_cfi_rung_named '<module>;outer;middle;py::leaf:/stk-test/py_cpu.py;leaf'
        run_capture "$STK" pmp -p "$PYPID"
        expect_match py313_xperfjit_pmp "$OUT" "py::leaf:/stk-test/py_cpu.py;PyObject_Vectorcall;middle;([^;]*;)*Py_RunMain;([^;]*;)*_start"
        kill "$PYPID" 2>/dev/null
    }
    # another PID namespace: the interpreter's thread ids are not the host's
    start_py py313-pidns unshare --pid --fork chroot "$ROOT" python3 /stk-test/py_threads.py wake && {
        p=$PYPID
        run_capture "$STK" offcputime -p "$p" -f 2
        check_chains py313_pidns_offcputime "$OUT"
        run_capture "$STK" pmp -p "$p" -f
        check_chains py313_pidns_pmp "$OUT"
        # the namespace's init: a signal from outside it without a handler is ignored, but for SIGKILL
        kill -KILL "$p" 2>/dev/null
    }
fi

# --- sid's python3.14 (3.12 is in no Debian suite now; stk names it and skips it: the fake below) ---
if python_root sid sid python3.14; then
    ROOTDIR=$ROOT VERSION=3.14
    check_python py314 /stk-test/py_threads.py /stk-test chroot "$ROOT" python3.14
fi

# --- a hostile interpreter: stk ends, bounded, and shows what is there ---
# vm_peak PID: stk's peak resident memory (kB) just before it exits
hostile() { # LABEL APPLET ARGS...
    local label=$1 start hwm=0 sp
    shift
    start=$(date +%s)
    "$STK" "$@" >"$tmp/h.out" 2>"$tmp/h.err" &
    sp=$!
    while kill -0 "$sp" 2>/dev/null; do
        hwm=$(awk '$1 == "VmHWM:" { print $2 }' /proc/"$sp"/status 2>/dev/null || echo "$hwm")
        [ $(($(date +%s) - start)) -gt 60 ] && { kill -9 "$sp"; fail "${label}_ends" "still running after 60 s"; }
        sleep 0.2
    done
    wait "$sp"
    RC=$? OUT=$(cat "$tmp/h.out") ERR=$(cat "$tmp/h.err")
    expect_eq "${label}_rc" "$RC" 0
    [ "${hwm:-0}" -lt 262144 ] && pass "${label}_memory_bounded" || fail "${label}_memory_bounded" "peak $hwm kB"
    echo "NOTE python/${label}: stk's peak resident memory $hwm kB"
}
start_workload "$W/fake_python"
F=$WPID
for a in "profile -F 199" "offcputime" "profile --unwind dwarf -F 199"; do
    label=hostile_$(echo "$a" | tr -c 'a-z0-9\n' _ | tr -s _ | sed 's/_$//')
    hostile "$label" $a -p "$F" -f -v 3
    check_hostile() {
        expect_contains "${label}_plain" "$OUT" ";run;py_root;py_mid;py_leaf"
        expect_contains "${label}_cycle" "$OUT" "cycle_a;"
        cycles=$(printf '%s\n' "$OUT" | grep -o 'cycle_[abc]' | wc -l)
        lines=$(printf '%s\n' "$OUT" | grep -c 'cycle_[abc]')
        [ "$lines" -gt 0 ] && [ "$cycles" -le $((lines * 8)) ] && pass "${label}_cycle_bounded" ||
            fail "${label}_cycle_bounded" "$cycles cycle frames in $lines stacks"
        deep=$(printf '%s\n' "$OUT" | awk -F';' '/deep_fn/ { n = gsub(/deep_fn/, ""); if (n > m) m = n } END { print m + 0 }')
        [ "$deep" -ge 10 ] && [ "$deep" -le 128 ] && pass "${label}_deep_bounded" || fail "${label}_deep_bounded" "$deep deep_fn frames"
        long=$(printf '%s\n' "$OUT" | sed 's/ [0-9]*$//' | tr ';' '\n' | grep '^FFF' | awk '{ print length($0) }' | sort -n | tail -1)
        [ "${long:-0}" -ge 500 ] && [ "${long:-0}" -le 515 ] && printf '%s\n' "$OUT" | grep -q 'FFF\.\.\.;\|FFF\.\.\. ' &&
            pass "${label}_huge_name_cut" || fail "${label}_huge_name_cut" "longest F name: ${long:-none}"
        # the frame the walk stops after, last in most stacks (followed by a space and the count)
        if printf '%s\n' "$OUT" | grep -Eq ';run;before_unmapped[; ]'; then pass "${label}_unmapped"
        else fail "${label}_unmapped" "no stack with run;before_unmapped in: $(printf '%s' "$OUT" | grep '^unmapped' | head -c 400)"; fi
        expect_contains "${label}_bad_code" "$OUT" "after_bad_code;[python]"
    }
    check_hostile
    # a thread made while stk runs, its state on no list: the kernel walk's search of the list (a cycle) ends
    if [ "$a" != "profile --unwind dwarf -F 199" ]; then
        if grep -Eq 'stopped early: .* thread list in a cycle [1-9][0-9]*;' "$tmp/h.err"; then pass "${label}_thread_list_cycle_said"
        else fail "${label}_thread_list_cycle_said" "$(grep 'interpreted frames in the kernel' "$tmp/h.err" | head -c 800)"; fi
    fi
done
# -v counts the user-space walks that stopped early by reason, in the order first met
if grep -Eq 'stopped early: (.*, )?the frames run in a cycle [0-9]+' "$tmp/h.err"; then pass hostile_cycle_said
else fail hostile_cycle_said "no cycle among the reasons: $(grep 'stopped early' "$tmp/h.err" | head -c 600)"; fi
hostile hostile_pmp pmp -p "$F" -v
expect_contains hostile_pmp_cycle "$OUT" "cycle_a,cycle_b,cycle_c,cycle_a"
expect_contains hostile_pmp_unmapped "$OUT" "before_unmapped,run"
# a version before 3.13 no test covers (3.12) is named and skipped; a _Py_DebugOffsets that lies is refused
start_workload "$W/fake_python312"
run_capture "$STK" pmp -p "$WPID" -v
expect_contains hostile_312_named "$ERR" "python 3.12: no layout stk has checked"
expect_contains hostile_312_skipped "$OUT" "_PyEval_EvalFrameDefault,run"
start_workload "$W/fake_python313"
run_capture "$STK" pmp -p "$WPID" -v
expect_contains hostile_313_lying_refused "$ERR" "python 3.13: its _Py_DebugOffsets do not hold"
expect_contains hostile_313_skipped "$OUT" "_PyEval_EvalFrameDefault,run"
