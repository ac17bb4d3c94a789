/*
 * Burns CPU through thousands of distinct call paths: each iteration walks
 * six levels, choosing one of four functions per level from a counter, so
 * 4^6 = 4096 different stacks recur.
 * Usage: manystacks SECONDS     burn for that long
 *        manystacks -n COUNT    do a fixed amount of work (for slowdown ratios)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned long (*step_fn)(unsigned long, int);

static unsigned long spin(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + (unsigned long)i;
	return x;
}

static unsigned long dispatch(unsigned long path, int level);

#define STEP(name)                                                                \
	__attribute__((noinline)) static unsigned long name(unsigned long path, int level) \
	{                                                                         \
		unsigned long r = level == 6 ? spin(path) : dispatch(path, level + 1); \
		__asm__ volatile("" : "+r"(r));                                   \
		return r;                                                         \
	}
STEP(step_alpha)
STEP(step_beta)
STEP(step_gamma)
STEP(step_delta)

static unsigned long dispatch(unsigned long path, int level)
{
	static const step_fn steps[4] = { step_alpha, step_beta, step_gamma, step_delta };

	return steps[(path >> (2 * level)) & 3](path, level);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10.0;
	struct timespec start, now;
	unsigned long sink = 0, path = 0;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		unsigned long count = strtoul(argv[2], NULL, 10);
		for (unsigned long i = 0; i < count; i++)
			sink += dispatch(i, 1);
		return (int)(sink & 1);
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += dispatch(path++, 1);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return (int)(sink & 1);
}
