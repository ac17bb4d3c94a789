/*
 * Threads that nap many times, with the truth to check sampled off-CPU time
 * against (stk record -e offcpu:N, stk offcputime --sample N): once GO_FILE
 * exists, each of THREADS threads (default 1) naps NAPS x nanosleep(US
 * microseconds) in napper_nap(); then prints "offcpu NS", the sum over the
 * threads of each one's wall time less its own CPU time over its loop (the
 * time it was off CPU), and "done", and stays until killed. Many threads
 * make many blocks in little time while each block stays long beside what
 * a tracer adds to a switch. Usage: napper NAPS US GO_FILE [THREADS].
 * Prints "ready PID" at start.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct napper {
	long naps, us;
	long long offcpu_ns; /* this thread's, when it is done */
};

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) static void napper_nap(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

static void *napper_thread(void *arg)
{
	struct napper *n = arg;
	long long wall = clock_ns(CLOCK_MONOTONIC), cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (long i = 0; i < n->naps; i++)
		napper_nap(n->us);
	n->offcpu_ns = (clock_ns(CLOCK_MONOTONIC) - wall) - (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: napper NAPS US GO_FILE [THREADS]\n");
		return 2;
	}
	long threads = argc > 4 ? atol(argv[4]) : 1;
	struct napper *n = calloc(threads > 0 ? (size_t)threads : 1, sizeof(*n));
	pthread_t *t = calloc(threads > 0 ? (size_t)threads : 1, sizeof(*t));
	long long offcpu = 0;

	if (!n || !t || threads < 1)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[3], F_OK) != 0)
		usleep(10000);
	for (long i = 0; i < threads; i++) {
		n[i] = (struct napper){ .naps = atol(argv[1]), .us = atol(argv[2]) };
		if (pthread_create(&t[i], NULL, napper_thread, &n[i]))
			return 1;
	}
	for (long i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		offcpu += n[i].offcpu_ns;
	}
	printf("offcpu %lld\ndone\n", offcpu);
	fflush(stdout);
	for (;;)
		pause();
}
