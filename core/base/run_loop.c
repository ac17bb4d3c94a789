#include "core/base/run_loop.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#define MAX_WATCHED_FDS 16

struct watched_fd {
	int fd;
	stk_run_fd_cb cb;
	void *ctx;
};

struct stk_run_loop {
	int epoll_fd, signal_fd, duration_fd, interval_fd;
	sigset_t old_mask;
	int last_signal;
	bool stop_pending; /* a signal read by stk_run_loop_stop_requested, not yet reported by the wait */
	struct watched_fd fds[MAX_WATCHED_FDS];
	size_t n_fds;
	/* stk_run_loop_on_signal: one more signal, its own signalfd and callback */
	int extra_fd;
	stk_run_fd_cb extra_cb;
	void *extra_ctx;
};

static int make_timer(long ms, int periodic)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = { 0 };

	if (fd < 0)
		return -1;
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000L;
	if (periodic)
		its.it_interval = its.it_value;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int watch(struct stk_run_loop *loop, int fd, void *tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = tag };

	return epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

struct stk_run_loop *stk_run_loop_new(long duration_ms, long interval_ms, char *err, size_t errlen)
{
	struct stk_run_loop *loop = calloc(1, sizeof(*loop));
	sigset_t mask;

	if (!loop) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	loop->signal_fd = loop->duration_fd = loop->interval_fd = loop->extra_fd = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, &loop->old_mask))
		goto fail;
	/* A shell starts background jobs with SIGINT ignored, and an ignored signal never reaches the
	   signalfd: `stk ... & kill -INT $!` must still end the run and print it. Blocked first, so
	   the default action never runs in between. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	loop->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (loop->epoll_fd < 0 || loop->signal_fd < 0 || watch(loop, loop->signal_fd, &loop->signal_fd, EPOLLIN))
		goto fail;
	if (duration_ms > 0) {
		loop->duration_fd = make_timer(duration_ms, 0);
		if (loop->duration_fd < 0 || watch(loop, loop->duration_fd, &loop->duration_fd, EPOLLIN))
			goto fail;
	}
	if (interval_ms > 0) {
		loop->interval_fd = make_timer(interval_ms, 1);
		if (loop->interval_fd < 0 || watch(loop, loop->interval_fd, &loop->interval_fd, EPOLLIN))
			goto fail;
	}
	return loop;
fail:
	snprintf(err, errlen, "setting up the wait loop failed: %s", strerror(errno));
	stk_run_loop_free(loop);
	return NULL;
}

static int add_fd(struct stk_run_loop *loop, int fd, stk_run_fd_cb cb, void *ctx, uint32_t events)
{
	if (loop->n_fds == MAX_WATCHED_FDS)
		return -1;
	struct watched_fd *w = &loop->fds[loop->n_fds];
	w->fd = fd;
	w->cb = cb;
	w->ctx = ctx;
	if (watch(loop, fd, w, events))
		return -1;
	loop->n_fds++;
	return 0;
}

int stk_run_loop_add_fd(struct stk_run_loop *loop, int fd, stk_run_fd_cb cb, void *ctx)
{
	return add_fd(loop, fd, cb, ctx, EPOLLIN);
}

int stk_run_loop_add_wakeups(struct stk_run_loop *loop, int fd, stk_run_fd_cb cb, void *ctx)
{
	return add_fd(loop, fd, cb, ctx, EPOLLIN | EPOLLET);
}

/* The extra signal arrived: taken from its signalfd, then the callback. */
static void on_extra_signal(void *ctx)
{
	struct stk_run_loop *loop = ctx;
	struct signalfd_siginfo si;

	if (read(loop->extra_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		loop->extra_cb(loop->extra_ctx);
}

int stk_run_loop_on_signal(struct stk_run_loop *loop, int sig, stk_run_fd_cb cb, void *ctx)
{
	sigset_t mask;

	if (loop->extra_fd >= 0 || sig == SIGINT || sig == SIGTERM) {
		errno = EBUSY;
		return -1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, sig);
	/* blocked until the loop is freed, which restores the mask it found */
	if (sigprocmask(SIG_BLOCK, &mask, NULL) ||
	    (loop->extra_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return -1;
	loop->extra_cb = cb;
	loop->extra_ctx = ctx;
	return add_fd(loop, loop->extra_fd, on_extra_signal, loop, EPOLLIN);
}

enum stk_run_event stk_run_loop_wait(struct stk_run_loop *loop)
{
	if (loop->stop_pending) {
		loop->stop_pending = false;
		return STK_RUN_SIGNAL;
	}
	for (;;) {
		struct epoll_event ev;
		int n = epoll_wait(loop->epoll_fd, &ev, 1, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return STK_RUN_ERROR;
		}
		if (ev.data.ptr == &loop->signal_fd) {
			struct signalfd_siginfo si;
			if (read(loop->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				loop->last_signal = (int)si.ssi_signo;
			return STK_RUN_SIGNAL;
		}
		if (ev.data.ptr == &loop->duration_fd)
			return STK_RUN_DURATION;
		if (ev.data.ptr == &loop->interval_fd) {
			uint64_t ticks;
			if (read(loop->interval_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
				return STK_RUN_ERROR;
			return STK_RUN_INTERVAL;
		}
		struct watched_fd *w = ev.data.ptr;
		w->cb(w->ctx);
		/* a callback that polled for a stop took the signal from signal_fd */
		if (loop->stop_pending) {
			loop->stop_pending = false;
			return STK_RUN_SIGNAL;
		}
	}
}

void stk_run_loop_request_stop(struct stk_run_loop *loop)
{
	loop->stop_pending = true;
}

bool stk_run_loop_stop_requested(void *loop_ptr)
{
	struct stk_run_loop *loop = loop_ptr;
	struct pollfd pfd = { .fd = loop->signal_fd, .events = POLLIN };
	struct signalfd_siginfo si;

	if (loop->stop_pending)
		return true;
	if (loop->signal_fd < 0 || poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN))
		return false;
	if (read(loop->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		loop->last_signal = (int)si.ssi_signo;
	loop->stop_pending = true;
	return true;
}

const char *stk_run_loop_signal_name(const struct stk_run_loop *loop)
{
	switch (loop->last_signal) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	default: return NULL;
	}
}

void stk_run_loop_free(struct stk_run_loop *loop)
{
	if (!loop)
		return;
	if (loop->interval_fd >= 0)
		close(loop->interval_fd);
	if (loop->duration_fd >= 0)
		close(loop->duration_fd);
	if (loop->signal_fd >= 0)
		close(loop->signal_fd);
	if (loop->extra_fd >= 0)
		close(loop->extra_fd);
	if (loop->epoll_fd >= 0)
		close(loop->epoll_fd);
	sigprocmask(SIG_SETMASK, &loop->old_mask, NULL);
	free(loop);
}
