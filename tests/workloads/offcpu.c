/*
 * Threads that block in known ways, for stk offcputime's tests:
 *   sleeper    after DELAY_MS, NAPS x nanosleep(50 ms) in sleeper_nap(), then exits;
 *              prints "nap NS" after each, how long it took (more than 50 ms when
 *              a busy CPU let it run again late: off-CPU time a tracer counts too)
 *   piperead   blocks in read() on a pipe (pipe_reader_wait) ...
 *   pipewrite  ... that this thread writes one byte to every 100 ms
 *   spinner    never blocks (spinner_spin)
 *   stuck      after DELAY_MS, blocks for good in read() of an empty pipe (stuck_forever)
 *   fsyncer    with DIR: write + fdatasync of a file there every 20 ms (disk waits, state D)
 * Usage: offcpu DELAY_MS LIFETIME_S NAPS [DIR|- [GO_FILE]]. Prints "ready PID"
 * once all threads run; exits after LIFETIME_S. With GO_FILE, DELAY_MS and
 * LIFETIME_S count from when GO_FILE exists (a tracer attached, however long
 * that took on a busy host). Waits other than the ones above use poll(), so
 * they never land on the nanosleep or read stacks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct shared {
	long delay_ms;
	long naps;
	double lifetime_s;
	int pipe_fds[2];  /* pipewrite -> piperead */
	int stuck_fds[2]; /* never written */
	const char *dir;
	const char *go; /* NULL: go at once */
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void sleeper_nap(void)
{
	struct timespec ts = { .tv_nsec = 50 * 1000000L };

	nanosleep(&ts, NULL);
}

/* Until GO_FILE exists (in 10 ms polls). */
static void wait_go(const struct shared *sh)
{
	while (sh->go && access(sh->go, F_OK))
		poll(NULL, 0, 10);
}

static void *sleeper_thread(void *arg)
{
	struct shared *sh = arg;

	prctl(PR_SET_NAME, "sleeper");
	wait_go(sh);
	poll(NULL, 0, (int)sh->delay_ms);
	for (long i = 0; i < sh->naps; i++) {
		long long start = mono_ns();

		sleeper_nap();
		printf("nap %lld\n", mono_ns() - start);
		fflush(stdout);
	}
	return NULL;
}

__attribute__((noinline)) static ssize_t pipe_reader_wait(int fd, char *c)
{
	return read(fd, c, 1);
}

static void *pipe_reader_thread(void *arg)
{
	struct shared *sh = arg;
	char c;

	prctl(PR_SET_NAME, "piperead");
	while (pipe_reader_wait(sh->pipe_fds[0], &c) == 1)
		;
	return NULL;
}

static void *pipe_writer_thread(void *arg)
{
	struct shared *sh = arg;

	prctl(PR_SET_NAME, "pipewrite");
	for (;;) {
		poll(NULL, 0, 100);
		if (write(sh->pipe_fds[1], "x", 1) != 1)
			return NULL;
	}
}

__attribute__((noinline)) static unsigned long spinner_spin(unsigned long n)
{
	for (unsigned long i = 0; i < 1000000; i++)
		n = n * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(n));
	return n;
}

static void *spinner_thread(void *arg)
{
	unsigned long sink = 0;

	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	for (;;)
		sink += spinner_spin(sink);
	return NULL;
}

__attribute__((noinline)) static void stuck_forever(int fd)
{
	char c;

	while (read(fd, &c, 1) != 0)
		;
}

static void *stuck_thread(void *arg)
{
	struct shared *sh = arg;

	prctl(PR_SET_NAME, "stuck");
	wait_go(sh);
	poll(NULL, 0, (int)sh->delay_ms);
	stuck_forever(sh->stuck_fds[0]);
	return NULL;
}

__attribute__((noinline)) static void fsync_loop(int fd)
{
	char block[4096];

	memset(block, 'x', sizeof(block));
	for (long i = 0;; i++) {
		if (pwrite(fd, block, sizeof(block), (i % 64) * (long)sizeof(block)) < 0 || fdatasync(fd))
			return;
		poll(NULL, 0, 20);
	}
}

static void *fsync_thread(void *arg)
{
	struct shared *sh = arg;
	char path[4096];
	int fd;

	prctl(PR_SET_NAME, "fsyncer");
	snprintf(path, sizeof(path), "%s/offcpu-fsync.%d", sh->dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	unlink(path);
	fsync_loop(fd);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct shared sh;
	void *(*fns[])(void *) = { sleeper_thread, pipe_reader_thread, pipe_writer_thread, spinner_thread,
				   stuck_thread, fsync_thread };
	size_t n = sizeof(fns) / sizeof(fns[0]);
	pthread_t t;

	if (argc < 4) {
		fprintf(stderr, "usage: offcpu DELAY_MS LIFETIME_S NAPS [DIR|- [GO_FILE]]\n");
		return 2;
	}
	sh.delay_ms = atol(argv[1]);
	sh.lifetime_s = atof(argv[2]);
	sh.naps = atol(argv[3]);
	sh.dir = argc > 4 && strcmp(argv[4], "-") != 0 ? argv[4] : NULL;
	sh.go = argc > 5 ? argv[5] : NULL;
	if (pipe(sh.pipe_fds) || pipe(sh.stuck_fds))
		return 1;
	if (!sh.dir)
		n--;
	double start = now_s();
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&t, NULL, fns[i], &sh))
			return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sh.go) {
		wait_go(&sh);
		start = now_s();
	}
	while (now_s() - start < sh.lifetime_s)
		poll(NULL, 0, 100);
	return 0;
}
