#!/usr/bin/env python3
"""stk pmp against gdb on the same threads: the functions of every thread's
user stack, innermost first, must be the ones gdb prints (the ones pt-pmp
aggregates), and the return addresses of blocked threads the same numbers.

Usage: pmp_vs_gdb.py STK PID TIDS [SPINNING_TID]  (PMP_MECHANISM=m: stk pmp --mechanism m)
Prints one PASS/FAIL line per thread (tests/lib.sh's format, suite pmp).

Two frames are the same function when they start at the same address
(gdb's symbol for the pc against stk's: aliases such as __GI___libc_read
and read, or __libc_start_main_impl and __libc_start_main, are one
function), or, for inlined frames and functions without a symbol, when
their names match once leading underscores and the __GI_ and libc_
prefixes are dropped (a function without a symbol is "??" to gdb and named
by its CFI's start to stk, mariadbd+0xc1f4e0). gdb adds frames for tail
calls from DWARF call-site records (no such frame is on the stack: libdw and
eu-stack show none either) and stops at main; both are left out."""
import os
import re
import subprocess
import sys
import tempfile

# Per frame: kind, name, pc, and where gdb's symbol for it starts (0: none).
GDB_FRAMES = r'''
import gdb
kinds = {gdb.NORMAL_FRAME: "N", gdb.INLINE_FRAME: "I", gdb.TAILCALL_FRAME: "T"}
def start_of(pc):
    text = gdb.execute("info symbol 0x%x" % pc, to_string=True)
    if text.startswith("No symbol"):
        return 0
    off = text.split(" in section")[0].rsplit(" + ", 1)
    return pc - (int(off[1]) if len(off) == 2 else 0)
for t in gdb.selected_inferior().threads():
    t.switch()
    f, out, first = gdb.newest_frame(), [], True
    while f is not None:
        kind = kinds.get(f.type(), "?")
        # a caller's pc is a return address: its call is one byte back
        start = start_of(f.pc() if first else f.pc() - 1) if kind == "N" else 0
        out.append("%s|%s|%x|%x" % (kind, f.name() or "", f.pc(), start))
        first = first and kind != "N"
        f = f.older()
    print("TID %d\t%s" % (t.ptid[1], "\t".join(out)))
'''


def canon(name):
    if not name or re.search(r"\+0x[0-9a-f]+$", name):
        return "??"
    name = re.sub(r"[(@].*", "", name)
    name = re.sub(r"^__GI_", "", name).lstrip("_")
    return re.sub(r"^libc_", "", name)


def stk_threads(stk, tids):
    """tid -> [(name, address or None when inlined, function start or 0)] from stk's text output."""
    mech = os.environ.get("PMP_MECHANISM")
    out = subprocess.run([stk, "pmp", "-U", "-v", "--format", "text", "-t", ",".join(tids)] +
                         (["--mechanism", mech] if mech else []), capture_output=True, text=True, check=True).stdout
    threads, frames = {}, []
    for line in out.splitlines():
        m = re.match(r"^    (.+) \(inlined\)$", line)
        if m:
            frames.append((m.group(1), None, 0))
            continue
        m = re.match(r"^    (.+?)(\+0x([0-9a-f]+))? \(0x([0-9a-f]+) ", line)
        if m:
            addr = int(m.group(4), 16)
            frames.append((m.group(1), addr, addr - int(m.group(3), 16) if m.group(3) else 0))
            continue
        m = re.match(r"^    -\s+.*\((\d+)/(\d+)\)$", line)
        if m:
            threads[m.group(2)] = frames
            frames = []
    return threads


def gdb_threads(pid):
    """tid -> [(kind, name, pc, function start or 0)] of gdb's backtrace, tail-call frames left out."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(GDB_FRAMES)
        script.flush()
        out = subprocess.run(["gdb", "-p", pid, "-batch", "-nx", "-ex", "source " + script.name],
                             capture_output=True, text=True).stdout
    threads = {}
    for line in out.splitlines():
        if line.startswith("TID "):
            fields = line.split("\t")
            frames = []
            for f in fields[1:]:
                kind, rest = f[:1], f[2:]
                name, pc, start = rest.rsplit("|", 2)
                if kind in ("N", "I"):
                    frames.append((kind, name, int(pc, 16), int(start, 16)))
            threads[fields[0][4:]] = frames
    return threads


def same(gdb_frame, stk_frame):
    kind, gname, _, gstart = gdb_frame
    sname, saddr, sstart = stk_frame
    if kind == "N" and saddr is not None and gstart and sstart:
        return gstart == sstart
    return canon(gname) == canon(sname)


def main():
    stk, pid, tids = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    spinning = sys.argv[4] if len(sys.argv) > 4 else None
    ours = stk_threads(stk, tids)  # first: gdb stops the process
    theirs = gdb_threads(pid)
    for tid in tids:
        with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
            comm = f.read().strip()
        name = "gdb_same_functions_%s" % comm
        if tid not in ours or tid not in theirs:
            print("FAIL pmp/%s: thread %s missing (stk: %s, gdb: %s)" % (name, tid, tid in ours, tid in theirs))
            continue
        want, got = theirs[tid], ours[tid]
        if want and canon(want[-1][1]) == "main":  # gdb stops at main; stk goes on to _start
            names = [canon(n) for n, _, _ in got]
            got = got[:names.index("main") + 1] if "main" in names else got
        if len(want) != len(got) or not all(same(w, g) for w, g in zip(want, got)):
            print("FAIL pmp/%s: thread %s: gdb %s, stk %s" % (name, tid, ",".join(canon(w[1]) for w in want),
                                                              ",".join(canon(g[0]) for g in got)))
            continue
        print("PASS pmp/%s" % name)
        if tid == spinning:
            continue  # it ran on between the two: only its functions are the same
        want_ret = [pc for k, _, pc, _ in want if k == "N"][1:]
        got_ret = [a for _, a, _ in got if a is not None][1:]
        if want_ret == got_ret:
            print("PASS pmp/gdb_same_return_addresses_%s" % comm)
        else:
            print("FAIL pmp/gdb_same_return_addresses_%s: gdb %s, stk %s" %
                  (comm, [hex(a) for a in want_ret], [hex(a) for a in got_ret]))


if __name__ == "__main__":
    main()
