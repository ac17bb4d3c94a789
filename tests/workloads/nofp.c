/*
 * Known stacks in code without frame pointers (built -O2 -fomit-frame-pointer),
 * where only CFI unwinding finds the callers.
 * Usage: nofp MODE [SECONDS]   (default 30); prints "ready PID" when started.
 *   chain      main -> stage_one -> stage_two -> stage_three -> hot_leaf (on CPU)
 *   qsort      main -> sorter -> stage_sort -> qsort (libc) -> ... -> cmp_leaf (on CPU)
 *   condwait   main -> cond_waiter -> wait_stage -> pthread_cond_timedwait (off CPU)
 *   nanosleep  main -> sleeper -> sleep_stage -> nanosleep (off CPU)
 *   all        the four at once, each in its own thread (start_thread -> ...)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds = 30.0;
static struct timespec start;

static int expired(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 >= seconds;
}

__attribute__((noinline)) unsigned long hot_leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

/* The volatile sinks keep each call from becoming a tail call (which drops the caller's frame). */
__attribute__((noinline)) unsigned long stage_three(unsigned long n)
{
	volatile unsigned long r = hot_leaf(n * 3);
	return r + 1;
}

__attribute__((noinline)) unsigned long stage_two(unsigned long n)
{
	volatile unsigned long r = stage_three(n + 2);
	return r + 1;
}

__attribute__((noinline)) unsigned long stage_one(unsigned long n)
{
	volatile unsigned long r = stage_two(n ^ 1);
	return r + 1;
}

__attribute__((noinline)) void *chain(void *arg)
{
	volatile unsigned long sink = 0;

	(void)arg;
	do
		sink += stage_one(sink);
	while (!expired());
	return NULL;
}

__attribute__((noinline)) int cmp_leaf(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	/* Some work per comparison so the comparator holds most samples. */
	for (int i = 0; i < 50; i++)
		__asm__ volatile("" : "+r"(x));
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void stage_sort(unsigned *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_leaf);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *sorter(void *arg)
{
	enum { N = 20000 };
	unsigned *v = malloc(N * sizeof(*v));
	unsigned seed = 1;

	(void)arg;
	if (!v)
		return NULL;
	do {
		for (size_t i = 0; i < N; i++)
			v[i] = (seed = seed * 1103515245u + 12345u);
		stage_sort(v, N);
	} while (!expired());
	free(v);
	return NULL;
}

__attribute__((noinline)) void wait_stage(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 50 * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(c, m, &until);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *cond_waiter(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	(void)arg;
	pthread_mutex_lock(&m);
	do
		wait_stage(&c, &m);
	while (!expired());
	pthread_mutex_unlock(&m);
	return NULL;
}

__attribute__((noinline)) void sleep_stage(void)
{
	struct timespec d = { 0, 50 * 1000000L };

	nanosleep(&d, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *sleeper(void *arg)
{
	(void)arg;
	do
		sleep_stage();
	while (!expired());
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void *(*fn)(void *);
	} modes[] = { { "chain", chain }, { "qsort", sorter }, { "condwait", cond_waiter }, { "nanosleep", sleeper } };
	const char *mode = argc > 1 ? argv[1] : "chain";
	pthread_t threads[4];

	if (argc > 2)
		seconds = atof(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &start);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(mode, "all") == 0) {
		for (int i = 0; i < 4; i++)
			if (pthread_create(&threads[i], NULL, modes[i].fn, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(threads[i], NULL);
		return 0;
	}
	for (int i = 0; i < 4; i++) {
		if (strcmp(mode, modes[i].name) == 0) {
			modes[i].fn(NULL);
			return 0;
		}
	}
	fprintf(stderr, "usage: nofp chain|qsort|condwait|nanosleep|all [SECONDS]\n");
	return 2;
}
