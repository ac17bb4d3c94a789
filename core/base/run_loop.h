/*
 * The wait loop of every applet: until SIGINT/SIGTERM or the duration ends,
 * optionally waking every interval, while servicing file descriptors (e.g.
 * a perf buffer). Signals arrive through a signalfd, so there is no signal
 * handler and no global flag; the mask is restored when the loop is freed.
 * So SIGINT/SIGTERM stay blocked until then: long work, while the loop runs
 * (unwinding samples in a callback) or after it ended (unwinding the rest,
 * symbolizing), polls stk_run_loop_stop_requested() to notice them.
 */
#ifndef STK_RUN_LOOP_H
#define STK_RUN_LOOP_H

#include <stdbool.h>
#include <stddef.h>

enum stk_run_event {
	STK_RUN_SIGNAL,   /* SIGINT or SIGTERM: print results and exit 0 */
	STK_RUN_DURATION, /* the requested duration has passed */
	STK_RUN_INTERVAL, /* an interval tick (-i) */
	STK_RUN_ERROR,
};

struct stk_run_loop;
typedef void (*stk_run_fd_cb)(void *ctx);

/* duration_ms / interval_ms 0: none. NULL with err set on failure. */
struct stk_run_loop *stk_run_loop_new(long duration_ms, long interval_ms, char *err, size_t errlen);
int stk_run_loop_add_fd(struct stk_run_loop *loop, int fd, stk_run_fd_cb cb, void *ctx);
/*
 * cb once per wakeup of fd, not again while it stays readable: for a
 * descriptor readable whenever anything waits in it (a BPF ring buffer's,
 * where the producer chooses when to wake the reader), which would
 * otherwise bring the loop back for every few records.
 */
int stk_run_loop_add_wakeups(struct stk_run_loop *loop, int fd, stk_run_fd_cb cb, void *ctx);
/*
 * cb when signal sig arrives (SIGHUP: stk record's next file), the signal
 * blocked from now until the loop is freed. One such signal per loop; not
 * SIGINT or SIGTERM. 0, or -1 (errno).
 */
int stk_run_loop_on_signal(struct stk_run_loop *loop, int sig, stk_run_fd_cb cb, void *ctx);
/* Blocks until one of the events above. */
enum stk_run_event stk_run_loop_wait(struct stk_run_loop *loop);
/*
 * A SIGINT/SIGTERM arrived that the wait has not reported (never blocks)?
 * Once true it stays true until the next wait returns STK_RUN_SIGNAL for it,
 * so every piece of work that polls it stops, and the loop still ends. Takes
 * a void * so it can serve as a stop callback (stk_symbolizer_set_stop).
 */
bool stk_run_loop_stop_requested(void *loop);
/* Ends the loop from one of its callbacks (a key that quits): the wait returns STK_RUN_SIGNAL, no signal named. */
void stk_run_loop_request_stop(struct stk_run_loop *loop);
/* Name of the signal that ended the loop ("SIGINT"/"SIGTERM"), or NULL. */
const char *stk_run_loop_signal_name(const struct stk_run_loop *loop);
void stk_run_loop_free(struct stk_run_loop *loop);

#endif
