/*
 * CPU time spent in two always_inline functions: outer -> inlined_middle ->
 * inlined_hot, where only outer exists as a symbol. DWARF's inline records
 * name the other two. Built -O2 with frame pointers (outer's caller stays).
 * Usage: inline_chain [SECONDS] (default 30). Prints "ready PID".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline __attribute__((always_inline)) unsigned long inlined_hot(unsigned long x)
{
	for (unsigned long i = 0; i < 4000000; i++) {
		x = x * 6364136223846793005UL + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static inline __attribute__((always_inline)) unsigned long inlined_middle(unsigned long x)
{
	unsigned long r = inlined_hot(x ^ 0x5a5a);

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* A real call keeps outer from being a leaf, so it sets up its frame and main stays visible. */
__attribute__((noinline)) unsigned long settle(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) unsigned long outer(unsigned long x)
{
	unsigned long r = inlined_middle(x) + 1;

	return settle(r) + 3; /* not a tail call */
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30.0;
	struct timespec start, now;
	unsigned long sink = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += outer(sink);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return (int)(sink & 1);
}
