#!/usr/bin/env python3
"""stk pmp against gdb on the same threads: the functions of every thread's
user stack, innermost first, must be the ones gdb prints (the ones pt-pmp
aggregates), and the return addresses of blocked threads the same numbers.

Usage: pmp_vs_gdb.py STK PID TIDS SPINNING_TID
Prints one PASS/FAIL line per thread (tests/lib.sh's format, suite pmp).

Names are compared as the same function: gdb names a libc function by its
DWARF name where stk takes the ELF symbol (__GI___libc_read and read,
___pthread_cond_wait and pthread_cond_wait), so leading underscores and the
__GI_ and libc_ prefixes are dropped on both sides. gdb adds frames for tail
calls from DWARF call-site records (no such frame is on the stack: libdw and
eu-stack show none either) and stops at main; both are left out."""
import re
import subprocess
import sys
import tempfile

GDB_FRAMES = r'''
import gdb
kinds = {gdb.NORMAL_FRAME: "N", gdb.INLINE_FRAME: "I", gdb.TAILCALL_FRAME: "T"}
for t in gdb.selected_inferior().threads():
    t.switch()
    f = gdb.newest_frame()
    out = []
    while f is not None:
        out.append("%s:%s:%x" % (kinds.get(f.type(), "?"), f.name(), f.pc()))
        f = f.older()
    print("TID %d %s" % (t.ptid[1], " ".join(out)))
'''


def canon(name):
    name = re.sub(r"[(@].*", "", name or "??")
    name = re.sub(r"^__GI_", "", name).lstrip("_")
    return re.sub(r"^libc_", "", name)


def stk_threads(stk, tids):
    """tid -> [(name, address or None for inlined)] from stk pmp's text output."""
    out = subprocess.run([stk, "pmp", "-U", "-v", "--format", "text", "-t", ",".join(tids)],
                         capture_output=True, text=True, check=True).stdout
    threads, frames = {}, []
    for line in out.splitlines():
        m = re.match(r"^    (\S+) \(inlined\)$", line)
        if m:
            frames.append((m.group(1), None))
            continue
        m = re.match(r"^    (\S+?)(\+0x[0-9a-f]+)? \(0x([0-9a-f]+) ", line)
        if m:
            frames.append((m.group(1), int(m.group(3), 16)))
            continue
        m = re.match(r"^    -\s+.*\((\d+)/(\d+)\)$", line)
        if m:
            threads[m.group(2)] = frames
            frames = []
    return threads


def gdb_threads(pid):
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(GDB_FRAMES)
        script.flush()
        out = subprocess.run(["gdb", "-p", pid, "-batch", "-nx", "-ex", "source " + script.name],
                             capture_output=True, text=True).stdout
    threads = {}
    for line in out.splitlines():
        if line.startswith("TID "):
            fields = line.split()
            threads[fields[1]] = [tuple(f.split(":", 2)) for f in fields[2:]]
    return threads


def main():
    stk, pid, tids, spinning = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
    ours = stk_threads(stk, tids)  # first: gdb stops the process
    theirs = gdb_threads(pid)
    for tid in tids:
        with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
            comm = f.read().strip()
        name = "gdb_same_functions_%s" % comm
        if tid not in ours or tid not in theirs:
            print("FAIL pmp/%s: thread missing (stk: %s, gdb: %s)" % (name, tid in ours, tid in theirs))
            continue
        want = [(k, canon(n), int(pc, 16)) for k, n, pc in theirs[tid] if k in ("N", "I")]
        got = [(canon(n), a) for n, a in ours[tid]]
        if want and want[-1][1] == "main":  # gdb stops at main; stk goes on to _start
            names = [n for n, _ in got]
            got = got[:names.index("main") + 1] if "main" in names else got
        want_names, got_names = [n for _, n, _ in want], [n for n, _ in got]
        if want_names != got_names:
            print("FAIL pmp/%s: gdb %s, stk %s" % (name, ",".join(want_names), ",".join(got_names)))
            continue
        print("PASS pmp/%s" % name)
        if tid == spinning:
            continue  # it ran on between the two: only its functions are the same
        want_ret = [pc for k, _, pc in want if k == "N"][1:]
        got_ret = [a for _, a in got if a is not None][1:]
        if want_ret == got_ret:
            print("PASS pmp/gdb_same_return_addresses_%s" % comm)
        else:
            print("FAIL pmp/gdb_same_return_addresses_%s: gdb %s, stk %s" %
                  (comm, [hex(a) for a in want_ret], [hex(a) for a in got_ret]))


if __name__ == "__main__":
    main()
