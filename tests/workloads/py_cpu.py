# A pure-Python CPU loop with a known chain (tests/integration/test_python.sh):
# every sample should read <module>;outer;middle;leaf. Prints "ready", runs
# until killed.
def leaf(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def middle(n):
    return leaf(n)


def outer():
    print("ready", flush=True)
    while True:
        middle(10000)


outer()
