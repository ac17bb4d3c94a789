#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "core/threads/syscall_table.h"
#include "core/threads/thread_enrich.h"
#include "core/threads/threads_proc.h"

static volatile long sleeper_tid;

static void wake(int sig)
{
	(void)sig;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 30, 0 };

	(void)arg;
	sleeper_tid = syscall(SYS_gettid);
	nanosleep(&ts, NULL);
	return NULL;
}

/* The /proc source on this very process: a thread in nanosleep is SLEEP in (clock_)nanosleep. */
static void samples_own_threads(struct test_ctx *t)
{
	pthread_t th;
	uint32_t self = (uint32_t)getpid();
	struct stk_thread_batch b = { 0 };
	struct timespec pause = { 0, 50000000 };
	/* The sleeper ends when SIGUSR1 interrupts its nanosleep (no SA_RESTART). */
	struct sigaction wake_up = { .sa_handler = wake }, old;

	sigaction(SIGUSR1, &wake_up, &old);
	CHECK(t, pthread_create(&th, NULL, sleeper, NULL) == 0);
	while (!sleeper_tid)
		nanosleep(&pause, NULL);
	nanosleep(&pause, NULL);
	struct stk_threads_proc *p = stk_threads_proc_new("/proc", &self, 1, 0);
	struct stk_thread_enrich *e = stk_thread_enrich_new("/proc");
	CHECK(t, p && e && stk_threads_proc_sample(p, &b) == 0);
	bool found_self = false, found_sleeper = false;
	for (size_t i = 0; i < b.n; i++) {
		struct stk_thread *x = &b.threads[i];
		CHECK(t, x->tgid == self);
		if (x->tid == self)
			found_self = x->state == STK_TSTATE_RUN || x->state == STK_TSTATE_RUNQ;
		if (x->tid == (uint32_t)sleeper_tid) {
			const char *name = stk_syscall_name(x->syscall);
			found_sleeper = x->state == STK_TSTATE_SLEEP && name && strstr(name, "nanosleep");
			stk_thread_enrich(e, x, false);
			CHECK(t, x->exe && strstr(x->exe, "unit") != NULL);
			CHECK(t, x->username && x->username[0]);
		}
	}
	CHECK(t, found_self);
	CHECK(t, found_sleeper);
	stk_thread_batch_free(&b);
	stk_thread_enrich_free(e);
	stk_threads_proc_free(p);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	sigaction(SIGUSR1, &old, NULL);
}

static void missing_proc_root(struct test_ctx *t)
{
	struct stk_thread_batch b = { 0 };
	struct stk_threads_proc *p = stk_threads_proc_new("/nonexistent", NULL, 0, 0);

	CHECK(t, p && stk_threads_proc_sample(p, &b) == -1 && b.n == 0);
	stk_threads_proc_free(p);
}

const struct test_case threads_proc_tests[] = {
	{ "threads_proc_own_threads", samples_own_threads },
	{ "threads_proc_missing_root", missing_proc_root },
	{ NULL, NULL },
};
