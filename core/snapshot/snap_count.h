/*
 * pmp's counting: the threads of one or more snapshots, each with its
 * unwound user chain, counted by what they show: their kernel frames,
 * their user frames and, when asked, a leading frame with their state and
 * wait channel ("[SLEEP futex_wait_queue]"), so threads in the same state
 * and stack merge. Then symbolized into the list every output takes.
 */
#ifndef STK_SNAP_COUNT_H
#define STK_SNAP_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot/snapshot.h"

struct stk_frame_names;
struct stk_symbolizer;
struct stk_stack;
struct stk_snap_counter;

struct stk_snap_count_opts {
	bool per_thread;  /* threads apart (-t), not merged by process */
	bool state_frame; /* the leading state frame */
	bool user_only, kernel_only;
};

/* names: kernel frames known by name and the state frames (not owned); sym: names of addresses. NULL: no memory. */
struct stk_snap_counter *stk_snap_counter_new(const struct stk_snap_count_opts *o, struct stk_frame_names *names,
					      struct stk_symbolizer *sym);
void stk_snap_counter_free(struct stk_snap_counter *c);
/* Counts t once with its user chain (leaf first) and why the chain ended (compared by address). 0, or -1: no memory. */
int stk_snap_count(struct stk_snap_counter *c, const struct stk_snap_thread *t, const uint64_t *user, size_t n_user,
		   const char *stop);
/* t's wait channel: its first kernel frame that is not the scheduler's own ("" when none). */
void stk_snap_wchan(struct stk_snap_counter *c, const struct stk_snap_thread *t, char *buf, size_t len);
/* The leading frame's text for a state and wait channel: "[SLEEP futex_wait_queue]", "[RUN]". */
void stk_snap_state_text(enum stk_tstate state, const char *wchan, char *buf, size_t len);
/* Distinct stacks counted so far, and the count of the i-th (for tests). */
size_t stk_snap_counter_size(const struct stk_snap_counter *c);
uint64_t stk_snap_counter_value(const struct stk_snap_counter *c, size_t i);
/*
 * The counted stacks, symbolized, each into a zeroed stack add(ctx) gives
 * (NULL: out of memory); their frame arrays are the caller's to free. 0, or -1.
 */
int stk_snap_counter_collect(struct stk_snap_counter *c, struct stk_stack *(*add)(void *ctx), void *ctx);

#endif
