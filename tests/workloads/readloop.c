/*
 * A workload with a known number of calls on known paths, for stk
 * stackcount's tests and bench:
 *   rl_read_path -> rl_read_once -> read(2) of one byte   (vfs_read, read)
 *   rl_alloc_path -> rl_alloc_once -> malloc + free       (c:malloc)
 *   rl_step_a / rl_step_b / rl_step_c, each once          (wildcards, regex)
 *   USDT stk_readloop:tick every iteration, and stk_readloop:guarded behind a
 *   semaphore (it fires only while a tracer holds the semaphore)
 *   rl_nap_path -> rl_nap_once -> nanosleep, NAPS times after the loop
 *   (glibc's nanosleep is a WEAK alias of __nanosleep)
 * Usage: readloop ITERATIONS [GO_FILE [NAPS]]. Prints "ready PID", waits until
 * GO_FILE exists (polling with access(2), which reads nothing), runs the
 * loop, prints "done N guarded G ns T" (T: the loop's wall time), then sleeps until killed (so its mappings
 * stay readable). Without GO_FILE it starts at once and exits when done.
 */
#define _GNU_SOURCE
#define _SDT_HAS_SEMAPHORES 1
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

/* With _SDT_HAS_SEMAPHORES every probe has one; only "guarded" is checked. */
__extension__ unsigned short stk_readloop_tick_semaphore __attribute__((unused, section(".probes")));
__extension__ unsigned short stk_readloop_guarded_semaphore __attribute__((unused, section(".probes")));

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) ssize_t rl_read_once(int fd, char *buf)
{
	lseek(fd, 0, SEEK_SET);
	return read(fd, buf, 1);
}

__attribute__((noinline)) ssize_t rl_read_path(int fd, char *buf)
{
	return rl_read_once(fd, buf);
}

__attribute__((noinline)) void *rl_alloc_once(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) void rl_alloc_path(long i)
{
	char *p = rl_alloc_once(64 + (size_t)(i & 7));

	if (p) {
		p[0] = (char)i;
		free(p);
	}
}

__attribute__((noinline)) int rl_nap_once(void)
{
	struct timespec ts = { 0, 1000 };

	return nanosleep(&ts, NULL);
}

__attribute__((noinline)) void rl_nap_path(void)
{
	rl_nap_once();
}

__attribute__((noinline)) long rl_step_a(long x) { return x + 1; }
__attribute__((noinline)) long rl_step_b(long x) { return x * 3; }
__attribute__((noinline)) long rl_step_c(long x) { return x - 2; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, guarded = 0, acc = 0;
	const char *go = argc > 2 ? argv[2] : NULL;
	long naps = argc > 3 ? atol(argv[3]) : 0;
	char buf[4];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("open");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (go && access(go, F_OK))
		nap_ms(10);
	long long start = now_ns();
	for (long i = 0; i < n; i++) {
		rl_read_path(fd, buf);
		rl_alloc_path(i);
		acc += rl_step_a(i) + rl_step_b(i) + rl_step_c(i);
		DTRACE_PROBE1(stk_readloop, tick, i);
		if (stk_readloop_guarded_semaphore) {
			DTRACE_PROBE1(stk_readloop, guarded, i);
			guarded++;
		}
	}
	long long elapsed = now_ns() - start;
	for (long i = 0; i < naps; i++)
		rl_nap_path();
	printf("done %ld guarded %ld ns %lld (%ld)\n", n, guarded, elapsed, acc & 1);
	fflush(stdout);
	while (go)
		nap_ms(1000);
	return 0;
}
