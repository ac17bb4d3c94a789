/*
 * A thread that naps many short times, with the truth to check sampled
 * off-CPU time against (stk record -e offcpu:N): once GO_FILE exists,
 * NAPS x nanosleep(US microseconds) in napper_nap(), each timed around the
 * call; then prints "napped NS" (the sum: the time off CPU, give or take
 * the microsecond or two each call spends entering and leaving the kernel)
 * and "done", and stays until killed. Usage: napper NAPS US GO_FILE.
 * Prints "ready PID" at start.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One nap, its length as the thread saw it. */
__attribute__((noinline)) static long long napper_nap(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };
	long long t0 = mono_ns();

	nanosleep(&ts, NULL);
	return mono_ns() - t0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: napper NAPS US GO_FILE\n");
		return 2;
	}
	long naps = atol(argv[1]), us = atol(argv[2]);
	long long napped = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[3], F_OK) != 0)
		usleep(10000);
	for (long i = 0; i < naps; i++)
		napped += napper_nap(us);
	printf("napped %lld\ndone\n", napped);
	fflush(stdout);
	for (;;)
		pause();
}
