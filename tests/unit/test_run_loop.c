#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/run_loop.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void ends_after_duration_with_interval_ticks(struct test_ctx *t)
{
	char err[128];
	struct stk_run_loop *loop = stk_run_loop_new(120, 50, err, sizeof(err));
	int ticks = 0;
	double start = now_ms();
	enum stk_run_event ev;

	CHECK(t, loop != NULL);
	if (!loop)
		return;
	while ((ev = stk_run_loop_wait(loop)) == STK_RUN_INTERVAL)
		ticks++;
	CHECK(t, ev == STK_RUN_DURATION);
	CHECK(t, ticks == 2);
	CHECK(t, now_ms() - start >= 115);
	stk_run_loop_free(loop);
}

static void fd_callback(void *ctx)
{
	int *fds = ctx;
	char c;

	if (read(fds[0], &c, 1) == 1)
		fds[2]++;
	raise(SIGTERM); /* blocked, so it waits in the signalfd */
}

static void services_fds_and_reports_signals(struct test_ctx *t)
{
	char err[128];
	int fds[3] = { -1, -1, 0 };
	struct stk_run_loop *loop = stk_run_loop_new(0, 0, err, sizeof(err));

	CHECK(t, loop != NULL && pipe(fds) == 0);
	if (!loop)
		return;
	CHECK(t, stk_run_loop_add_fd(loop, fds[0], fd_callback, fds) == 0);
	CHECK(t, write(fds[1], "x", 1) == 1);
	CHECK(t, stk_run_loop_wait(loop) == STK_RUN_SIGNAL);
	CHECK(t, fds[2] == 1);
	const char *name = stk_run_loop_signal_name(loop);
	CHECK(t, name && strcmp(name, "SIGTERM") == 0);
	stk_run_loop_free(loop);
	close(fds[0]);
	close(fds[1]);
}

/*
 * A SIGTERM is seen by polling (work like unwinding and symbolization checks
 * it); it stays seen, by every poller, until the wait reports it.
 */
static void stop_requested_polls_the_signal(struct test_ctx *t)
{
	char err[128];
	struct stk_run_loop *loop = stk_run_loop_new(0, 0, err, sizeof(err));

	CHECK(t, loop != NULL);
	if (!loop)
		return;
	CHECK(t, !stk_run_loop_stop_requested(loop));
	raise(SIGTERM); /* blocked: pending in the signalfd */
	CHECK(t, stk_run_loop_stop_requested(loop));
	CHECK(t, stk_run_loop_stop_requested(loop));
	const char *name = stk_run_loop_signal_name(loop);
	CHECK(t, name && strcmp(name, "SIGTERM") == 0);
	/* The signal a poll took still ends the wait, once; then nothing is pending. */
	CHECK(t, stk_run_loop_wait(loop) == STK_RUN_SIGNAL);
	CHECK(t, !stk_run_loop_stop_requested(loop));
	stk_run_loop_free(loop);
}

/* A callback that polls for the stop takes the signal: the wait still ends, though its fd stays readable. */
struct polling {
	struct stk_run_loop *loop;
	int rounds;
};

static void polling_callback(void *ctx)
{
	struct polling *p = ctx;

	raise(SIGTERM);
	/* the first round polls (the case under test); later rounds only bound a broken wait */
	if (++p->rounds == 1)
		(void)stk_run_loop_stop_requested(p->loop);
}

static void callback_that_polls_ends_the_wait(struct test_ctx *t)
{
	char err[128];
	int fds[2] = { -1, -1 };
	struct polling p = { stk_run_loop_new(0, 0, err, sizeof(err)), 0 };

	CHECK(t, p.loop != NULL && pipe(fds) == 0);
	if (!p.loop)
		return;
	CHECK(t, write(fds[1], "x", 1) == 1); /* never drained */
	CHECK(t, stk_run_loop_add_fd(p.loop, fds[0], polling_callback, &p) == 0);
	CHECK(t, stk_run_loop_wait(p.loop) == STK_RUN_SIGNAL);
	CHECK(t, p.rounds == 1);
	stk_run_loop_free(p.loop);
	close(fds[0]);
	close(fds[1]);
}

/* A descriptor watched for its wakeups: one call per write, though it stays readable (never drained). */
struct wakeups {
	int fds[2];
	int calls;
};

static void wakeup_callback(void *ctx)
{
	struct wakeups *w = ctx;

	/* the first call wakes it once more */
	if (++w->calls == 1 && write(w->fds[1], "y", 1) != 1)
		w->calls = 100;
}

static void wakeups_once_per_write(struct test_ctx *t)
{
	char err[128];
	struct wakeups w = { { -1, -1 }, 0 };
	struct stk_run_loop *loop = stk_run_loop_new(150, 0, err, sizeof(err));

	CHECK(t, loop != NULL && pipe(w.fds) == 0);
	if (!loop)
		return;
	CHECK(t, stk_run_loop_add_wakeups(loop, w.fds[0], wakeup_callback, &w) == 0);
	CHECK(t, write(w.fds[1], "x", 1) == 1);
	CHECK(t, stk_run_loop_wait(loop) == STK_RUN_DURATION);
	CHECK(t, w.calls == 2);
	stk_run_loop_free(loop);
	close(w.fds[0]);
	close(w.fds[1]);
}

static void count_hangup(void *ctx)
{
	(*(int *)ctx)++;
}

/* One more signal (stk record's SIGHUP): its callback runs inside the wait, which goes on; the mask comes back. */
static void extra_signal_runs_its_callback(struct test_ctx *t)
{
	char err[128];
	struct stk_run_loop *loop = stk_run_loop_new(100, 0, err, sizeof(err));
	sigset_t before, after;
	int hups = 0;

	CHECK(t, loop != NULL);
	if (!loop)
		return;
	sigprocmask(SIG_BLOCK, NULL, &before);
	CHECK(t, stk_run_loop_on_signal(loop, SIGHUP, count_hangup, &hups) == 0);
	CHECK(t, stk_run_loop_on_signal(loop, SIGUSR1, count_hangup, &hups) < 0); /* one a loop */
	CHECK(t, raise(SIGHUP) == 0);
	CHECK(t, stk_run_loop_wait(loop) == STK_RUN_DURATION);
	CHECK(t, hups == 1);
	stk_run_loop_free(loop);
	sigprocmask(SIG_BLOCK, NULL, &after);
	CHECK(t, sigismember(&after, SIGHUP) == sigismember(&before, SIGHUP));
}

const struct test_case run_loop_tests[] = {
	{ "run_loop_extra_signal", extra_signal_runs_its_callback },
	{ "run_loop_wakeups_once", wakeups_once_per_write },
	{ "run_loop_callback_polls_stop", callback_that_polls_ends_the_wait },
	{ "run_loop_stop_requested", stop_requested_polls_the_signal },
	{ "run_loop_duration_interval", ends_after_duration_with_interval_ticks },
	{ "run_loop_fd_and_signal", services_fds_and_reports_signals },
	{ NULL, NULL },
};
