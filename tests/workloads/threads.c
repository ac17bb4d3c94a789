/*
 * Threads in known states for `stk threadstate` tests and its bench.
 *
 *   threads known [BUSY]  one thread of each kind, named after it:
 *     spin      spins on CPU 0: RUN, or RUNQ while something else has
 *               CPU 0 (tests compare with its /proc schedstat times; a
 *               raised priority would starve CPU 0's kworkers instead)
 *     busyN     BUSY (default 3) spinners pinned together on the last CPU:
 *               one runs, the others wait, so at any sample at least
 *               BUSY-1 of them are RUNQ
 *     piperead  blocked in read() on a pipe nobody writes: SLEEP, read,
 *               fd pipe:[...]
 *     sleeper   in nanosleep(): SLEEP, nanosleep
 *     napper    nanosleep() of 100 ms in a loop: SLEEP, nanosleep, with a
 *               syscall time below 100 ms (it re-enters while stk watches)
 *     vforkwait in clone(CLONE_VFORK) whose child never execs or exits:
 *               the parent waits in wait_for_vfork_done(), TASK_KILLABLE
 *               (uninterruptible but killable): DISK, clone
 *     a child process "stopped" that stopped itself with SIGSTOP: STOPPED
 *               (SIGSTOP stops a whole process, so it cannot be a thread here)
 *   threads idle N        N threads sleeping in pause() (bench)
 *
 * Prints "NAME TID" for each, then "ready", and runs until killed; the
 * children die with it (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fds[2];

static void announce(const char *name)
{
	prctl(PR_SET_NAME, name);
	pthread_mutex_lock(&print_lock);
	printf("%s %ld\n", name, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set); /* best effort: a 1-CPU VM has only CPU 0 */
}

static volatile unsigned long sink;

static void spin_forever(void)
{
	for (;;)
		sink++;
}

static void *spin(void *arg)
{
	(void)arg;
	pin_to(0);
	announce("spin");
	spin_forever();
	return NULL;
}

static void *busy(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "busy%ld", (long)arg);
	pin_to((int)sysconf(_SC_NPROCESSORS_ONLN) - 1);
	announce(name);
	spin_forever();
	return NULL;
}

static void *piperead(void *arg)
{
	char c;

	(void)arg;
	announce("piperead");
	for (;;)
		if (read(pipe_fds[0], &c, 1) <= 0)
			pause();
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 3600, 0 };

	(void)arg;
	announce("sleeper");
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

static void *napper(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	announce("napper");
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

static int vfork_child(void *arg)
{
	(void)arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		pause();
	return 0;
}

static void *vforkwait(void *arg)
{
	static char stack[64 * 1024];

	(void)arg;
	announce("vforkwait");
	clone(vfork_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	return NULL;
}

static void start_stopped_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		announce("stopped");
		raise(SIGSTOP);
		for (;;)
			pause();
	}
}

static void start(void *(*fn)(void *), void *arg, size_t stack)
{
	pthread_t t;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	if (pthread_create(&t, &attr, fn, arg)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&attr);
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "idle") == 0) {
		long n = atol(argv[2]);
		for (long i = 0; i < n; i++)
			start(idle, NULL, 64 * 1024);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc < 2 || strcmp(argv[1], "known") != 0) {
		fprintf(stderr, "usage: threads known [BUSY] | threads idle N\n");
		return 2;
	}
	long n_busy = argc >= 3 ? atol(argv[2]) : 3;
	if (pipe(pipe_fds))
		return 1;
	/*
	 * The stopped child's SIGCHLD would wake whichever thread does not block
	 * it: a sleeper woken so returns to its nap through restart_syscall, and
	 * the state under test is gone. Every thread inherits this mask.
	 */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, NULL);
	start_stopped_child();
	start(spin, NULL, 256 * 1024);
	for (long i = 1; i <= n_busy; i++)
		start(busy, (void *)i, 256 * 1024);
	start(piperead, NULL, 256 * 1024);
	start(sleeper, NULL, 256 * 1024);
	start(napper, NULL, 256 * 1024);
	start(vforkwait, NULL, 256 * 1024);
	sleep(1); /* let every thread announce itself and reach its state */
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
