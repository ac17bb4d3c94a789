# Threads with known Python chains (tests/integration/test_python.sh):
#   main     <module>;recurse x41;Sleeper.nap        sleeping in a method, 40 calls deep
#   sorter   ...;Thread.run;sorter;<C: sorted>;by_key  Python -> C -> Python
#   locked   ...;Thread.run;wait_lock                 blocked on a lock
#   workers  ...;Thread.run;Handler.serve;Event.wait;Condition.wait  (still mode, WORKERS of them)
# "wake" mode: each wakes every 20 ms (offcputime sees its blocks end); "still"
# mode: each blocks for good, and a reporter thread writes what the process
# says of itself (sys._current_frames(), root first, by native thread id)
# to the file given, then ends. Prints "ready" once every thread runs its
# chain; runs until killed.
import sys
import threading
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "wake"
workers = int(sys.argv[3]) if len(sys.argv) > 3 else 0
pause = 0.02 if mode == "wake" else 100000
lock = threading.Lock()
lock.acquire()
never = threading.Event()
ready = threading.Barrier((4 if mode == "still" else 3) + workers)


class Sleeper:
    def nap(self):
        while True:
            time.sleep(pause)


def recurse(n):
    if n == 0:
        Sleeper().nap()
    return recurse(n - 1)


def by_key(x):
    time.sleep(pause)
    return x


def sorter():
    ready.wait()
    while True:
        sorted([3, 1, 2], key=by_key)


def wait_lock():
    ready.wait()
    while True:
        lock.acquire(timeout=pause) if mode == "wake" else lock.acquire()


class Handler:
    def serve(self):
        ready.wait()
        never.wait()


def report(path):
    ready.wait()
    me = threading.get_ident()
    names = {t.ident: t.native_id for t in threading.enumerate()}
    # the others are blocked once their chains are the ones above
    for _ in range(200):
        time.sleep(0.05)
        frames = sys._current_frames()
        chains = {}
        for ident, f in frames.items():
            if ident == me:
                continue
            chain = []
            while f is not None:
                chain.append(f.f_code.co_qualname)
                f = f.f_back
            chains[names.get(ident)] = ";".join(reversed(chain))
        ends = ("Sleeper.nap", "by_key", "wait_lock", "Condition.wait")
        if all(c.endswith(ends) for c in chains.values()) and len(chains) == 3 + workers:
            break
    with open(path + ".tmp", "w") as out:
        for tid, chain in sorted(chains.items()):
            out.write("%d %s\n" % (tid, chain))
    import os
    os.rename(path + ".tmp", path)


threading.Thread(target=sorter, name="sorter").start()
threading.Thread(target=wait_lock, name="locked").start()
for i in range(workers):
    threading.Thread(target=Handler().serve, name="worker%d" % i).start()
if mode == "still":
    threading.Thread(target=report, args=(sys.argv[2],), name="reporter").start()
ready.wait()
print("ready", flush=True)
recurse(40)
