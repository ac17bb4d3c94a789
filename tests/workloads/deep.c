/*
 * A deep chain of large frames without frame pointers (built -O2
 * -fomit-frame-pointer): main -> level_01 -> ... -> level_49 -> leaf, each
 * level holding 700 bytes of locals, so the whole stack is over 34 KiB: more
 * than a stack copy of the usual 8 KiB reaches, all of it for CFI walked in
 * the kernel.
 * Usage: deep MODE [SECONDS [PROGRAM ARGS...]]   (default 30); prints "ready
 * PID" when started; with PROGRAM, execs it when the time is up (the same
 * process becomes another program: mappings an unwinder knew are stale).
 *   spin   the leaf burns CPU
 *   sleep  the leaf sleeps in nanosleep, 1 ms at a time
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds = 30.0;
static int sleeping;
static struct timespec start;

static int expired(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 >= seconds;
}

__attribute__((noinline)) unsigned long leaf(unsigned long n)
{
	unsigned long acc = n;

	if (sleeping) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
		return acc + 1;
	}
	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

/* Each level keeps 700 bytes of locals live across its call, and uses the result (no tail call). */
#define LEVEL(this, next)                                              \
	__attribute__((noinline)) unsigned long this(unsigned long n)  \
	{                                                              \
		volatile unsigned char pad[700];                       \
		pad[0] = (unsigned char)n;                             \
		pad[699] = (unsigned char)(n >> 8);                    \
		unsigned long r = next(n + pad[0]);                    \
		return r + pad[699];                                   \
	}

LEVEL(level_49, leaf)
LEVEL(level_48, level_49) LEVEL(level_47, level_48) LEVEL(level_46, level_47) LEVEL(level_45, level_46)
LEVEL(level_44, level_45) LEVEL(level_43, level_44) LEVEL(level_42, level_43) LEVEL(level_41, level_42)
LEVEL(level_40, level_41) LEVEL(level_39, level_40) LEVEL(level_38, level_39) LEVEL(level_37, level_38)
LEVEL(level_36, level_37) LEVEL(level_35, level_36) LEVEL(level_34, level_35) LEVEL(level_33, level_34)
LEVEL(level_32, level_33) LEVEL(level_31, level_32) LEVEL(level_30, level_31) LEVEL(level_29, level_30)
LEVEL(level_28, level_29) LEVEL(level_27, level_28) LEVEL(level_26, level_27) LEVEL(level_25, level_26)
LEVEL(level_24, level_25) LEVEL(level_23, level_24) LEVEL(level_22, level_23) LEVEL(level_21, level_22)
LEVEL(level_20, level_21) LEVEL(level_19, level_20) LEVEL(level_18, level_19) LEVEL(level_17, level_18)
LEVEL(level_16, level_17) LEVEL(level_15, level_16) LEVEL(level_14, level_15) LEVEL(level_13, level_14)
LEVEL(level_12, level_13) LEVEL(level_11, level_12) LEVEL(level_10, level_11) LEVEL(level_09, level_10)
LEVEL(level_08, level_09) LEVEL(level_07, level_08) LEVEL(level_06, level_07) LEVEL(level_05, level_06)
LEVEL(level_04, level_05) LEVEL(level_03, level_04) LEVEL(level_02, level_03) LEVEL(level_01, level_02)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	volatile unsigned long sink = 0;

	if (strcmp(mode, "spin") != 0 && strcmp(mode, "sleep") != 0) {
		fprintf(stderr, "usage: deep spin|sleep [SECONDS]\n");
		return 2;
	}
	sleeping = mode[1] == 'l';
	if (argc > 2)
		seconds = atof(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &start);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!expired())
		sink += level_01(sink);
	if (argc > 3) {
		execv(argv[3], argv + 3);
		perror("deep: exec");
		return 1;
	}
	return 0;
}
