/*
 * A context-switch-heavy job for bench/offcputime.sh: two threads pass one
 * byte back and forth over two pipes N times (each pass blocks one thread
 * and wakes the other). Usage: offcpu_pingpong N. Prints the wall time in
 * microseconds and the number of round trips.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct pp {
	int ping[2], pong[2];
	long n;
};

static void *ponger(void *arg)
{
	struct pp *p = arg;
	char c;

	for (long i = 0; i < p->n; i++)
		if (read(p->ping[0], &c, 1) != 1 || write(p->pong[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	struct pp p = { .n = argc > 1 ? atol(argv[1]) : 100000 };
	struct timespec a, b;
	pthread_t t;
	char c = 'x';

	if (pipe(p.ping) || pipe(p.pong) || pthread_create(&t, NULL, ponger, &p))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < p.n; i++)
		if (write(p.ping[1], &c, 1) != 1 || read(p.pong[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	printf("%ld us %ld round trips\n",
	       (long)((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000), p.n);
	return 0;
}
