/* Calls into libstkburn.so: main -> lib_entry -> lib_known_leaf. Usage: burn_shlib [SECONDS]. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

unsigned long lib_entry(unsigned long n);

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30.0;
	struct timespec start, now;
	unsigned long sink = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += lib_entry(sink);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return (int)(sink & 1);
}
