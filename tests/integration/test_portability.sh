#!/bin/bash
# The test suite itself must pass whichever awk a Debian host has (mawk by
# default, gawk on many hosts). Two guards over every shell script of the
# tree (tests/, bench/, ci/, btf/, packaging/) and the Makefile:
#  - lint: no regex handed to awk with -v (awk processes -v backslashes, and
#    gawk and mawk disagree on "\[": pass strings through ENVIRON instead),
#    and no gawk-only functions or variables; in the tests' programs no printf
#    %d or %i (mawk 1.3.4 prints 2147483647 for anything larger: %.0f, with
#    int() where the value may have a fraction);
#  - every awk program written inline in single quotes runs, on empty input,
#    under each of gawk and mawk that is installed without a word on stderr
#    (syntax errors, regex escape warnings).
SUITE=portability
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
cd "$root" || exit 1

files=$(ls tests/*.sh tests/*/*.sh tests/vm/checks/*.sh bench/*.sh ci/*.sh btf/*.sh packaging/*.sh \
           packaging/*/*.sh Makefile 2>/dev/null | sort -u)

bad=$(grep -nE 'awk[^|;]*-v +(re|regex|pat|pattern)[A-Za-z0-9_]*=' $files)
if [ -z "$bad" ]; then pass no_regex_through_awk_v
else fail no_regex_through_awk_v "pass regexes through ENVIRON, not -v: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi

bad=$(grep -nwE 'gensub|asorti?|systime|mktime|strftime|patsplit|isarray|typeof|PROCINFO|IGNORECASE|BEGINFILE|ENDFILE|FPAT|@include' $files |
      grep -w awk)
if [ -z "$bad" ]; then pass no_gawk_only_functions
else fail no_gawk_only_functions "$(echo "$bad" | head -3 | tr '\n' ' ')"; fi

# Every inline program: awk [-F X | -v N=V]... 'PROGRAM'
progs=$(mktemp -d)
trap 'rm -rf "$progs"' EXIT
python3 - "$progs" $files <<'PY'
import re, sys
out, files = sys.argv[1], sys.argv[2:]
opt = r"""(?:\s+-[Fv]\s*(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]+))*"""
pat = re.compile(r"(?<![\w-])awk" + opt + r"\s+'([^']*)'")
n = 0
for f in files:
    text = open(f, errors="replace").read()
    for m in pat.finditer(text):
        prog = m.group(1)
        if f == "Makefile":
            prog = prog.replace("$$", "$")
        line = text.count("\n", 0, m.start()) + 1
        with open("%s/%04d" % (out, n), "w") as p:
            p.write("%s:%d\n%s" % (f, line, prog))
        n += 1
PY
count=$(ls "$progs" | wc -l)
if [ "$count" -ge 20 ]; then pass programs_found; else fail programs_found "only $count inline awk programs found"; fi
bad=$(for p in "$progs"/*; do
    case $(head -1 "$p") in tests/*) tail -n +2 "$p" | grep -q '%[-+ 0-9.]*[di]' && head -1 "$p" ;; esac
done)
if [ -z "$bad" ]; then pass no_int_printf_in_tests
else fail no_int_printf_in_tests "printf %d clamps at 2147483647 under mawk, use %.0f: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi

impls=0
for impl in gawk mawk; do
    command -v "$impl" >/dev/null || { skip "programs_run_under_$impl" "$impl is not installed"; continue; }
    impls=$((impls + 1))
    noisy=""
    for p in "$progs"/*; do
        where=$(head -1 "$p")
        msg=$(tail -n +2 "$p" | { prog=$(cat); "$impl" -- "$prog" </dev/null 2>&1 >/dev/null; })
        [ -n "$msg" ] && noisy="$noisy $where: $(echo "$msg" | head -2 | tr '\n' ' ');"
    done
    if [ -z "$noisy" ]; then pass "programs_run_under_$impl"
    else fail "programs_run_under_$impl" "$(echo "$noisy" | head -c 600)"; fi
done
[ "$impls" -gt 0 ] || fail programs_run "neither gawk nor mawk is installed"
