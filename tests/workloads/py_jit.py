# A pure-Python CPU loop under -X perf_jit (tests/integration/test_python.sh):
# samples should read <module>;outer;middle;leaf, each function's trampoline
# named from /tmp/jit-PID.dump. CPython 3.13 writes that file through a stdio
# buffer, so the records of the last code it compiled reach the file only when
# more code is compiled: after the loop's functions run once, many small
# functions are compiled and run to push their records out. Prints "ready",
# runs until killed.


def leaf(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def middle(n):
    return leaf(n)


def outer(forever):
    if forever:
        print("ready", flush=True)
    while True:
        middle(10000)
        if not forever:
            return


outer(False)
for i in range(400):
    scope = {}
    exec(f"def filler_{i}():\n    return {i}\n", scope)
    scope[f"filler_{i}"]()
outer(True)
