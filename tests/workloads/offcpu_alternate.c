/*
 * One thread that blocks at the same place from two callers in turn, for
 * the kernel walk's kept walks (bpf/unwind_types.h, struct stk_walk_memo):
 * alt_left() and alt_right() each call alt_nap(), which sleeps 10 ms, from
 * the same stack depth, so the thread enters the kernel with the same pc,
 * sp and frame pointer every time; only the return address above alt_nap
 * tells the two apart. Each round is left, left, right: the second left
 * may reuse the first one's walk, and a walk kept from one caller must
 * never stand in for the other. With "kernel" after SECONDS, the two
 * callers nap through different system calls from that one call site
 * (left nanosleep, right clock_nanosleep): the same user registers, kernel
 * chains that differ in one frame, for the kept kernel chains
 * (bpf/kernel_memo.h). Usage: offcpu_alternate SECONDS [kernel]. Prints
 * "ready PID", then at the end "left N right N": how many naps each caller
 * made.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int alt_side; /* written after each call: the two callers' code differs, so no merge */
static int alt_kernel;        /* "kernel": the callers' naps take different system calls */

__attribute__((noinline)) static void alt_nap(int left)
{
	struct timespec ts = { .tv_nsec = 10 * 1000000L };
	long nr = SYS_nanosleep, a[4] = { (long)&ts, 0, 0, 0 };

	if (alt_kernel && !left) {
		nr = SYS_clock_nanosleep;
		a[0] = CLOCK_MONOTONIC;
		a[2] = (long)&ts;
	}
	/* one call site for both: the same pc, sp and return address on entering the kernel */
	syscall(nr, a[0], a[1], a[2], a[3]);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void alt_left(void)
{
	alt_nap(1);
	alt_side = 1;
}

__attribute__((noinline)) static void alt_right(void)
{
	alt_nap(0);
	alt_side = 2;
}

/* One call site for each caller, one for this: every left nap has the same stack, and so has every right one. */
__attribute__((noinline)) static void alt_call(int left)
{
	if (left)
		alt_left();
	else
		alt_right();
}

int main(int argc, char **argv)
{
	struct timespec start, now;
	long left = 0, right = 0;
	double secs = argc > 1 ? atof(argv[1]) : 5;

	alt_kernel = argc > 2 && strcmp(argv[2], "kernel") == 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0;; i++) {
		alt_call(i % 3 != 2);
		if (i % 3 != 2)
			left++;
		else
			right++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 >= secs)
			break;
	}
	printf("left %ld right %ld\n", left, right);
	return 0;
}
