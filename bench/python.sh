#!/bin/bash
# bench/python: interpreter frames' cost in the kernel walk. stk profile -F 999
# of a pure-Python CPU loop DEPTH calls deep (tests/workloads/py_deep.py, on
# this host's python3.11 and, when test_python.sh cached them, Debian 13's
# 3.13 and sid's 3.14) against a native program whose stack has the same
# number of frames (tests/workloads/deep.c's spin: 53 frames), one process
# each, SECS seconds after a second of warm-up; and a web server under load
# (tests/workloads/py_web.py on python3.11, apache2-utils' ab keeping two
# connections busy on its CPU path). Prints a table:
#   frames          frames per stack in stk's output (the median stack)
#   ns per sample   the profile program's BPF run time per run (kernel.bpf_stats_enabled)
#   x native        that over the native program's (not for the server: its stacks are shallower)
#   with Python     share of the samples that hold the interpreted frames (<module>;down;
#                   the server's Handler.do_GET;render_page;checksum)
# medians of REPEAT runs. Needs root.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
REPEAT=${REPEAT:-3}
SECS=${SECS:-5}
cache=${STK_TEST_CACHE:-/var/cache/stk-test}
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled=0' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
make -C "$root" --no-print-directory BUILD="$BUILD" "$W/deep" >/dev/null || exit 1


# one run: CMD... -> "ns_per_sample frames python_share" over SECS seconds; with LOAD
# set, CMD is py_web.py and ab requests that path of it, two connections at a time
once() {
    local wp sp ns0 runs0 ns1 runs1 lp=
    "$@" >"$tmp/w.out" 2>&1 &
    wp=$!
    for _ in $(seq 100); do grep -q ready "$tmp/w.out" && break; sleep 0.05; done
    if [ -n "${LOAD:-}" ]; then
        ab -q -k -r -c 2 -t 600 -n 100000000 "http://127.0.0.1:$(sed -n 's/^ready //p' "$tmp/w.out")$LOAD" >/dev/null 2>&1 &
        lp=$!
    fi
    "$STK" profile -p "$wp" -F 999 -f >"$tmp/out" 2>/dev/null &
    sp=$!
    wait_attached "$sp" 1
    read -r ns0 runs0 < <(bpf_ns_runs "$sp" stk_profile)
    sleep "$SECS"
    read -r ns1 runs1 < <(bpf_ns_runs "$sp" stk_profile)
    kill -INT "$sp"; wait "$sp" 2>/dev/null
    [ -n "$lp" ] && { kill -9 "$lp"; wait "$lp"; } 2>/dev/null
    kill -9 "$wp"; wait "$wp" 2>/dev/null
    re=${PY_RE:-'<module>;down'} awk -v ns="$((ns1 - ns0))" -v n="$((runs1 - runs0))" '
        { c = $NF; total += c; k = split($0, f, ";"); frames[NR] = k; w[NR] = c; if ($0 ~ ENVIRON["re"]) py += c }
        END { # the frames of the median sample
              m = 0; half = total / 2; for (i = 1; i <= NR; i++) { idx[i] = i }
              for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (frames[idx[j]] < frames[idx[i]]) { t = idx[i]; idx[i] = idx[j]; idx[j] = t }
              for (i = 1; i <= NR && acc < half; i++) { acc += w[idx[i]]; m = frames[idx[i]] }
              printf "%.0f %d %.1f\n", n ? ns / n : 0, m - 1, total ? 100 * py / total : 0 }' "$tmp/out"
}

row() { # LABEL CMD...
    local label=$1 r ns=() fr=() py=()
    shift
    for _ in $(seq "$REPEAT"); do
        read -r a b c < <(once "$@")
        ns+=("$a") fr+=("$b") py+=("$c")
    done
    ROW_NS=$(printf '%s\n' "${ns[@]}" | median)
    printf '%-40s %7s %14s %10s %12s\n' "$label" "$(printf '%s\n' "${fr[@]}" | median)" "$ROW_NS" \
        "$(awk -v a="$ROW_NS" -v b="${NATIVE:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
        "$(printf '%s\n' "${py[@]}" | median)%"
}

printf '\n%-40s %7s %14s %10s %12s\n' "stk profile -F 999 -p, one process" frames "ns per sample" "x native" "with Python"
NATIVE=
row "native: deep spin (C, no frame pointers)" "$W/deep" spin 1000
NATIVE=$ROW_NS
row "python3.11: py_deep.py 38" /usr/bin/python3.11 "$root/tests/workloads/py_deep.py" 38
for r in trixie:python3 sid:python3.14; do
    dir=$cache/python-${r%%:*}
    [ -f "$dir/.stk-root-done" ] || continue
    mkdir -p "$dir/stk-test" && cp "$root/tests/workloads/py_deep.py" "$dir/stk-test/"
    v=$(chroot "$dir" "${r#*:}" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    row "python$v (${r%%:*} root): py_deep.py 38" chroot "$dir" "${r#*:}" /stk-test/py_deep.py 38
done
bench_install bench/python apache2-utils
NATIVE= LOAD=/cpu PY_RE='Handler\.do_GET;render_page;checksum' \
    row "python3.11: py_web.py under ab -k -c 2" /usr/bin/python3.11 "$root/tests/workloads/py_web.py"
printf '(medians of %s runs of %s s; load average: %s)\n' "$REPEAT" "$SECS" "$(cut -d' ' -f1-3 /proc/loadavg)"
