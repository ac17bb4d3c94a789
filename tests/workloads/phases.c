/*
 * Phases at known times and requests with known ids, in code without frame
 * pointers (-O2 -fomit-frame-pointer), for the event log's tests.
 * Usage: phases GO_FILE [PHASE_SECONDS] [REQUESTS]
 * Prints "ready PID", waits for GO_FILE to exist (the tracer is attached),
 * then one thread runs, printing each part's wall-clock times (CLOCK_REALTIME
 * ns) when it ends:
 *   phase burn_a START END     on CPU in phase_a_burn
 *   phase sleep_b START END    off CPU (nanosleep) in phase_b_sleep
 *   phase burn_c START END     on CPU in phase_c_burn
 *   request ID START END       handle_request(ID): on CPU in request_work, then
 *                              do_query(ID * 100) asleep in query_wait; USDT
 *                              phases:request_start / request_end around it
 * and "done" at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

static long long wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The volatile sinks keep each call from becoming a tail call (which drops the caller's frame). */
__attribute__((noinline)) unsigned long spin_for(long long ns)
{
	long long until = mono_ns() + ns;
	volatile unsigned long acc = 1;

	while (mono_ns() < until)
		for (int i = 0; i < 10000; i++)
			acc = acc * 6364136223846793005UL + (unsigned long)i;
	return acc;
}

__attribute__((noinline)) void sleep_for(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&t, &t))
		;
}

__attribute__((noinline)) unsigned long phase_a_burn(long long ns)
{
	volatile unsigned long r = spin_for(ns);
	return r + 1;
}

__attribute__((noinline)) void phase_b_sleep(long long ns)
{
	sleep_for(ns);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) unsigned long phase_c_burn(long long ns)
{
	volatile unsigned long r = spin_for(ns);
	return r + 1;
}

__attribute__((noinline)) unsigned long request_work(long long ns)
{
	volatile unsigned long r = spin_for(ns);
	return r + 1;
}

__attribute__((noinline)) void query_wait(long long ns)
{
	sleep_for(ns);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) long do_query(long qid, long long ns)
{
	query_wait(ns);
	__asm__ volatile("" ::: "memory");
	return qid + 1;
}

__attribute__((noinline)) long handle_request(long id, long long ns)
{
	volatile unsigned long r = request_work(ns);
	volatile long q = do_query(id * 100, ns);

	return (long)r + q;
}

static void phase(const char *name, long long start)
{
	printf("phase %s %lld %lld\n", name, start, wall_ns());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	long requests = argc > 3 ? atol(argv[3]) : 10;
	long long part = (long long)(seconds * 1e9), start;

	if (argc < 2) {
		fprintf(stderr, "usage: phases GO_FILE [PHASE_SECONDS] [REQUESTS]\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK))
		sleep_for(10000000);
	start = wall_ns();
	phase_a_burn(part);
	phase("burn_a", start);
	start = wall_ns();
	phase_b_sleep(part);
	phase("sleep_b", start);
	start = wall_ns();
	phase_c_burn(part);
	phase("burn_c", start);
	for (long id = 1; id <= requests; id++) {
		start = wall_ns();
		STAP_PROBE1(phases, request_start, id);
		handle_request(id, part / 10);
		STAP_PROBE1(phases, request_end, id);
		printf("request %ld %lld %lld\n", id, start, wall_ns());
		fflush(stdout);
	}
	printf("done\n");
	fflush(stdout);
	return 0;
}
