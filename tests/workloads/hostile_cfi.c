/*
 * CFI that makes libdw slow and huge (tests/integration/test_hardening.sh):
 * the main thread spins in a function whose FDE names a register number in
 * the millions (.cfi_undefined) and then copies the register array with
 * .cfi_remember_state; libdw sizes its array by the largest register named
 * and copies all of it at each remember_state. A second thread ("normal_burn")
 * burns CPU in ordinary functions, whose stacks must stay intact.
 * Usage: hostile_cfi big|small [SECONDS]   (big: register 4,000,000 and 30
 * copies; small: register 1,000,000 and 10). Prints "ready PID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* NAME spins COUNT times; its CFI at the first instruction: COPIES remember_states after REG. */
#define REMEMBER2 ".cfi_remember_state\n.cfi_remember_state\n"
#define REMEMBER10 REMEMBER2 REMEMBER2 REMEMBER2 REMEMBER2 REMEMBER2
#define REMEMBER30 REMEMBER10 REMEMBER10 REMEMBER10
#if defined(__x86_64__)
#define SPIN_BODY "1: dec %rdi\n jnz 1b\n ret\n"
#elif defined(__aarch64__)
#define SPIN_BODY "1: subs x0, x0, #1\n b.ne 1b\n ret\n"
#else
#error "hostile_cfi: no spin loop for this architecture"
#endif
#define HOSTILE(name, reg, copies)                                                                 \
	__asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n"                \
		".cfi_startproc\n.cfi_undefined " #reg "\n" copies SPIN_BODY ".cfi_endproc\n"      \
		".size " #name ", .-" #name "\n")

void hostile_big_spin(unsigned long count);
void hostile_small_spin(unsigned long count);
HOSTILE(hostile_big_spin, 4000000, REMEMBER30);
HOSTILE(hostile_small_spin, 1000000, REMEMBER10);

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

__attribute__((noinline)) void hostile_caller(void (*spin)(unsigned long), double seconds)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		spin(20000000);
	while (seconds_since(&start) < seconds);
}

__attribute__((noinline)) unsigned long normal_leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

__attribute__((noinline)) unsigned long normal_mid(unsigned long n)
{
	unsigned long r = normal_leaf(n) ^ n;

	__asm__ volatile("" : "+r"(r));
	return r;
}

static void *normal_thread(void *arg)
{
	unsigned long sink = 0;

	(void)arg;
	for (;;)
		sink += normal_mid(sink);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "big";
	double seconds = argc > 2 ? atof(argv[2]) : 30.0;
	pthread_t t;

	if (strcmp(which, "big") != 0 && strcmp(which, "small") != 0) {
		fprintf(stderr, "usage: hostile_cfi big|small [SECONDS]\n");
		return 2;
	}
	if (pthread_create(&t, NULL, normal_thread, NULL))
		return 1;
	pthread_setname_np(t, "normal_burn");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	hostile_caller(strcmp(which, "big") == 0 ? hostile_big_spin : hostile_small_spin, seconds);
	return 0;
}
