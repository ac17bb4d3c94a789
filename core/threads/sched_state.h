/*
 * offcputime's --state: which kinds of switch-out are counted. Accepts
 * bcc's numeric mask (0 = preempted/runnable, else state & MASK) and ps(1)
 * letters, comma separated or not: R (preempted), S (interruptible sleep),
 * D (uninterruptible, not idle), T (stopped), t (traced), I (idle kernel
 * wait), P (parked).
 */
#ifndef STK_SCHED_STATE_H
#define STK_SCHED_STATE_H

#include <stdint.h>

struct stk_state_filter {
	uint32_t running; /* state == 0 */
	uint32_t include; /* state & include ... */
	uint32_t exclude; /* ... && !(state & exclude) */
	uint32_t idle;    /* (state & TASK_IDLE) == TASK_IDLE */
};

/* 0, or -1 when text is neither a mask nor a list of known letters. */
int stk_state_filter_parse(const char *text, struct stk_state_filter *f);

#endif
