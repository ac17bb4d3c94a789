#!/usr/bin/env python3
"""Agreement of user-stack caller chains, name for name, between stk's folded
output and `perf script --no-inline` of a `perf record --call-graph dwarf`
capture (inline frames are not compared: stk shows functions, as symbols are).

usage: chains_agree.py STK_FOLDED PERF_SCRIPT [--collapse-recursion] [-v]
--collapse-recursion: a run of one function calling itself counts as one
frame (qsort's merge sort recurses to a depth that differs from sample to
sample, so exact chains are each rare and their sets differ by chance).
Prints "stk=F perf=F chains=N/M": the fraction of each tool's samples whose
whole chain (root to leaf, function names only) the other tool also saw.
"""
import collections
import sys


def canonical(name):
    """One spelling per function: glibc exports one function under several
    aliases (__GI___qsort_r = qsort_r, __libc_start_main@@GLIBC_2.34), and the
    two tools may pick different ones of the same address."""
    name = name.split("@", 1)[0]
    if name.startswith("__GI_"):
        name = name[5:]
    return name.lstrip("_") or name


def stk_chains(path):
    chains = collections.Counter()
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or " " not in line:
                continue
            stack, count = line.rsplit(" ", 1)
            frames = stack.split(";")[1:]  # drop the comm
            chains[tuple(canonical(f) for f in frames)] += int(count)
    return chains


def perf_chains(path):
    """perf script --no-inline -F comm,ip,sym: a header line, then one frame per line (leaf first)."""
    chains = collections.Counter()
    frames = None
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if frames:
                    chains[tuple(reversed(frames))] += 1
                frames = None
                continue
            if not line[0].isspace():
                frames = []
                continue
            if frames is None:
                continue
            parts = line.split(None, 1)
            addr = int(parts[0], 16)
            if addr >= 0xFFFF800000000000:  # kernel frame
                continue
            name = parts[1].strip() if len(parts) > 1 else "[unknown]"
            frames.append(canonical(name))
    if frames:
        chains[tuple(reversed(frames))] += 1
    return chains


def collapse(chains):
    out = collections.Counter()
    for c, n in chains.items():
        out[tuple(f for i, f in enumerate(c) if i == 0 or c[i - 1] != f)] += n
    return out


def agree(a, b):
    total = sum(a.values())
    return sum(n for c, n in a.items() if c in b) / total if total else 0.0


def main():
    s, p = stk_chains(sys.argv[1]), perf_chains(sys.argv[2])
    if "--collapse-recursion" in sys.argv:
        s, p = collapse(s), collapse(p)
    print("stk=%.3f perf=%.3f chains=%d/%d samples=%d/%d" % (
        agree(s, p), agree(p, s), len(s), len(p), sum(s.values()), sum(p.values())))
    if "-v" in sys.argv:
        for c, n in s.most_common():
            if c not in p:
                print("only stk %d: %s" % (n, ";".join(c)))
        for c, n in p.most_common():
            if c not in s:
                print("only perf %d: %s" % (n, ";".join(c)))


main()
