# A pure-Python CPU loop with a known chain (tests/integration/test_python.sh):
# every sample should read <module>;outer;middle;leaf. Prints "ready", runs
# until killed; with SECONDS, runs the loop for that long in a thread started
# a moment after the process (...;Thread.run;outer;middle;leaf), then exits.
# With "flush" (for -X perf_jit): CPython 3.13 writes /tmp/jit-PID.dump
# through a stdio buffer, so the records of the code it compiled last reach
# the file only when more code is compiled; before the loop, its functions
# run once and then many small ones are compiled to push their records out.
import sys
import threading
import time


def leaf(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def middle(n):
    return leaf(n)


def outer(until=None, flush=False):
    if flush:
        middle(10)
        for i in range(400):
            scope = {}
            exec(f"def filler_{i}():\n    return {i}\n", scope)
            scope[f"filler_{i}"]()
    print("ready", flush=True)
    while until is None or time.monotonic() < until:
        middle(10000)


if sys.argv[1:] == ["flush"]:
    outer(flush=True)
elif len(sys.argv) > 1:
    time.sleep(0.3)
    t = threading.Thread(target=outer, args=(time.monotonic() + float(sys.argv[1]),))
    t.start()
    t.join()
else:
    outer()
