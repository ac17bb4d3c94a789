# A pure-Python CPU loop DEPTH calls deep (bench/python.sh: BPF time per
# sample against a native stack of the same depth): <module>;down x DEPTH;spin.
# Prints "ready", runs until killed.
import sys


def spin():
    print("ready", flush=True)
    total = 0
    while True:
        for i in range(1000):
            total += i * i


def down(n):
    if n == 0:
        spin()
    down(n - 1)


down(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
