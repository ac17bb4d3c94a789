# A pure-Python CPU loop with a known chain (tests/integration/test_python.sh):
# every sample should read <module>;outer;middle;leaf. Prints "ready", runs
# until killed; with SECONDS, runs the loop for that long in a thread started
# a moment after the process (...;Thread.run;outer;middle;leaf), then exits.
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


def outer(until=None):
    print("ready", flush=True)
    while until is None or time.monotonic() < until:
        middle(10000)


if len(sys.argv) > 1:
    time.sleep(0.3)
    t = threading.Thread(target=outer, args=(time.monotonic() + float(sys.argv[1]),))
    t.start()
    t.join()
else:
    outer()
