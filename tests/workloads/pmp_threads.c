/*
 * Threads blocked in known functions, for stk pmp (built without frame
 * pointers: only CFI finds the callers). Usage: pmp_threads MODE [SECONDS] (default
 * 60); prints "ready PID" once every thread is where it stays.
 *   blocked  one thread each, named as below, blocked since before "ready":
 *              piperead   pipe_reader -> read_stage -> read
 *              condwait   cond_sleeper -> cond_stage -> pthread_cond_wait
 *              napping    napper -> nap_stage -> nanosleep
 *              epollwait  epoller -> epoll_stage -> epoll_wait
 *              accepting  acceptor -> accept_stage -> accept
 *              mutexwait  locker -> lock_stage -> pthread_mutex_lock (main holds it)
 *              spinning   spinner -> spin_stage -> spin_leaf (on CPU)
 *            and main in main -> main_wait -> pause.
 *   idle N   N threads blocked in idle_thread -> idle_stage -> read of a pipe.
 *   churn    threads created and ending all the time (churner -> churn_stage).
 *   zombie   a child that exits at once and is never reaped; prints "zombie PID".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready_count;
static int pipe_fds[2];

/* A thread says it is about to block; main prints "ready" once all have. */
static void arrived(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&ready_lock);
	ready_count++;
	pthread_cond_signal(&ready_cond);
	pthread_mutex_unlock(&ready_lock);
}

/* The asm barriers keep each call from becoming a tail call (which would drop the caller's frame). */
__attribute__((noinline)) void read_stage(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *pipe_reader(void *arg)
{
	(void)arg;
	arrived("piperead");
	read_stage(pipe_fds[0]);
	return NULL;
}

__attribute__((noinline)) void cond_stage(pthread_cond_t *c, pthread_mutex_t *m)
{
	pthread_cond_wait(c, m);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *cond_sleeper(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	(void)arg;
	pthread_mutex_lock(&m);
	arrived("condwait");
	for (;;)
		cond_stage(&c, &m);
	return NULL;
}

__attribute__((noinline)) void nap_stage(void)
{
	struct timespec d = { 100000, 0 };

	nanosleep(&d, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *napper(void *arg)
{
	(void)arg;
	arrived("napping");
	for (;;)
		nap_stage();
	return NULL;
}

__attribute__((noinline)) void epoll_stage(int ep)
{
	struct epoll_event ev;

	epoll_wait(ep, &ev, 1, -1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *epoller(void *arg)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	(void)arg;
	arrived("epollwait");
	for (;;)
		epoll_stage(ep);
	return NULL;
}

__attribute__((noinline)) void accept_stage(int s)
{
	accept(s, NULL, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *acceptor(void *arg)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	(void)arg;
	/* An abstract address: nothing to clean up on disk. */
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "stk-pmp-%d", (int)getpid());
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1))
		perror("acceptor");
	arrived("accepting");
	for (;;)
		accept_stage(s);
	return NULL;
}

__attribute__((noinline)) void lock_stage(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *locker(void *arg)
{
	(void)arg;
	arrived("mutexwait");
	lock_stage(&held);
	return NULL;
}

__attribute__((noinline)) unsigned long spin_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < 1000000; i++)
		n = n * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(n));
	return n;
}

__attribute__((noinline)) unsigned long spin_stage(unsigned long n)
{
	volatile unsigned long r = spin_leaf(n);
	return r + 1;
}

__attribute__((noinline)) void *spinner(void *arg)
{
	volatile unsigned long sink = 0;

	(void)arg;
	arrived("spinning");
	for (;;)
		sink += spin_stage(sink);
	return NULL;
}

__attribute__((noinline)) void idle_stage(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ready_lock);
	ready_count++;
	pthread_cond_signal(&ready_cond);
	pthread_mutex_unlock(&ready_lock);
	idle_stage(pipe_fds[0]);
	return NULL;
}

__attribute__((noinline)) void churn_stage(void)
{
	struct timespec d = { 0, 200000 };

	nanosleep(&d, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *churner(void *arg)
{
	(void)arg;
	churn_stage();
	return NULL;
}

__attribute__((noinline)) void main_wait(void)
{
	pause();
	__asm__ volatile("" ::: "memory");
}

static void wait_for(int n)
{
	pthread_mutex_lock(&ready_lock);
	while (ready_count < n)
		pthread_cond_wait(&ready_cond, &ready_lock);
	pthread_mutex_unlock(&ready_lock);
}

static void start(void *(*fn)(void *))
{
	pthread_attr_t a;
	pthread_t t;

	/* Small stacks: thousands of idle threads fit. */
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (pthread_create(&t, &a, fn, NULL)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&a);
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "blocked";
	unsigned seconds = argc > 2 && strcmp(mode, "idle") != 0 ? (unsigned)atoi(argv[2]) : 60;

	if (strcmp(mode, "idle") == 0 && argc > 3)
		seconds = (unsigned)atoi(argv[3]);
	signal(SIGALRM, on_alarm);
	alarm(seconds);
	if (pipe(pipe_fds))
		return 1;
	if (strcmp(mode, "blocked") == 0) {
		void *(*const fns[])(void *) = { pipe_reader, cond_sleeper, napper, epoller, acceptor, locker, spinner };
		int n = (int)(sizeof(fns) / sizeof(fns[0]));

		pthread_mutex_lock(&held);
		for (int i = 0; i < n; i++)
			start(fns[i]);
		wait_for(n);
		usleep(100000); /* from "arrived" into the blocking call */
	} else if (strcmp(mode, "idle") == 0) {
		int n = argc > 2 ? atoi(argv[2]) : 100;

		for (int i = 0; i < n; i++)
			start(idle_thread);
		wait_for(n);
		usleep(100000);
	} else if (strcmp(mode, "churn") == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		for (;;) {
			pthread_t t;
			if (pthread_create(&t, NULL, churner, NULL) == 0)
				pthread_detach(t);
			usleep(100);
		}
	} else if (strcmp(mode, "zombie") == 0) {
		pid_t child = fork();

		if (child == 0)
			_exit(0);
		printf("zombie %d\n", (int)child);
	} else {
		fprintf(stderr, "usage: pmp_threads blocked|idle N|churn|zombie [SECONDS]\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		main_wait();
}
