/*
 * A CPU burner with a known stack: main -> known_mid -> known_leaf.
 * Usage: burn [SECONDS]   (default 30). Prints "ready PID" when started.
 * Built non-PIE and PIE, static and dynamic, stripped with debuglink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) unsigned long known_leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

__attribute__((noinline)) unsigned long known_mid(unsigned long n)
{
	unsigned long r = known_leaf(n) ^ n;

	__asm__ volatile("" : "+r"(r));
	return r;
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
		sink += known_mid(sink);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return (int)(sink & 1);
}
