#!/usr/bin/env python3
"""Checks a threadstate CSV recording of tests/workloads/threads (known).

usage: threadstate_check.py DIR TIDS_FILE SOURCE RUN_FRACTION
Prints one "PASS threadstate/NAME" or "FAIL threadstate/NAME: why" per check.
TIDS_FILE holds the workload's "NAME TID" lines; RUN_FRACTION is the share
of the capture the spin thread spent on a CPU per its /proc schedstat.
"""
import collections
import csv
import glob
import sys

HEADER = ("time,tid,pid,state,username,comm,exe,syscall,syscall_us,filename,wchan,"
          "arg0,arg1,arg2,arg3,arg4,arg5,kstack,ustack").split(",")

out_dir, tids_file, source, run_fraction = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
tids = {}
for line in open(tids_file):
    parts = line.split()
    if len(parts) == 2:
        tids[parts[0]] = parts[1]


def report(name, ok, why=""):
    name = f"threadstate/{source}_{name}"
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")


rows, header_ok = [], True
for path in sorted(glob.glob(f"{out_dir}/samples-*.csv")):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        header_ok &= header == HEADER
        for r in reader:
            if len(r) != len(HEADER):
                header_ok = False
            rows.append(dict(zip(HEADER, r)))
report("csv_columns", header_ok and rows, f"header or row width differs from {HEADER}")
by_tid = collections.defaultdict(list)
for r in rows:
    by_tid[r["tid"]].append(r)
samples = sorted({r["time"] for r in rows})
report("samples_taken", len(samples) >= 10, f"only {len(samples)} samples")


def fraction(name, pred):
    mine = by_tid.get(tids.get(name, "?"), [])
    return (sum(1 for r in mine if pred(r)) / len(samples)) if samples else 0.0


def expect(name, pred, what, at_least=0.9):
    f = fraction(name, pred)
    report(f"{name}_{what}", f >= at_least, f"{f:.2f} of {len(samples)} samples, want >= {at_least}")


expect("spin", lambda r: r["state"] in ("RUN", "RUNQ") and r["syscall"] == "", "runnable")
spin_run = fraction("spin", lambda r: r["state"] == "RUN")
# RUN vs RUNQ of the spinner against what the scheduler says it got (shared 2-CPU box).
tolerance = 0.25
report("spin_run_matches_schedstat", abs(spin_run - run_fraction) <= tolerance,
       f"sampled RUN {spin_run:.2f}, schedstat on-CPU {run_fraction:.2f}")
busy = [n for n in tids if n.startswith("busy")]
for n in busy:
    expect(n, lambda r: r["state"] in ("RUN", "RUNQ"), "runnable")
# The busy threads share one CPU: in a sample at most one of them can be RUN.
busy_tids = {tids[n] for n in busy}
overfull = sum(1 for t in samples
               if sum(1 for r in rows if r["time"] == t and r["tid"] in busy_tids and r["state"] == "RUN") > 1)
if source != "proc":  # /proc cannot tell running from runnable per sample (see core/threads/threads_proc.h)
    runq = sum(1 for r in rows if r["tid"] in busy_tids and r["state"] == "RUNQ") / max(1, len(samples))
    report("busy_share_one_cpu", overfull <= 0.1 * len(samples) and runq >= 0.9 * (len(busy) - 1),
           f"{overfull} samples with >1 busy thread RUN, {runq:.2f} RUNQ busy threads per sample")
expect("piperead", lambda r: r["state"] == "SLEEP" and r["syscall"] == "read"
       and r["filename"].startswith("pipe:["), "read_pipe")
expect("sleeper", lambda r: r["state"] == "SLEEP" and r["syscall"] in ("clock_nanosleep", "nanosleep"),
       "nanosleep")
expect("vforkwait", lambda r: r["state"] == "DISK" and r["syscall"] in ("clone", "clone3", "vfork"), "disk")
expect("stopped", lambda r: r["state"] == "STOPPED", "stopped")
wchan = fraction("sleeper", lambda r: "nanosleep" in r["wchan"])
report("sleeper_wchan", wchan >= 0.9, f"wchan has no *nanosleep* in {1 - wchan:.2f} of samples")

# Time in the current syscall: sources that see syscalls entered while they watch.
if source in ("task_iter", "tracepoint_state"):
    naps = [r for r in by_tid.get(tids.get("napper", "?"), []) if r["syscall"] in ("clock_nanosleep", "nanosleep")]
    timed = [int(r["syscall_us"]) for r in naps if r["syscall_us"]]
    ok = len(naps) >= 0.8 * len(samples) and len(timed) >= 0.8 * len(naps) and all(0 <= us <= 150000 for us in timed)
    report("napper_syscall_time", ok, f"{len(naps)} nanosleep rows, {len(timed)} timed, values {timed[:8]}")
else:
    timed = [r for r in rows if r["syscall_us"]]
    report("no_syscall_time", not timed, f"{len(timed)} rows with a syscall time the source cannot know")
