/*
 * Walking a ladder (core/ladder/ladder.h) at run time: each rung in order is
 * tried end to end; the first that works is kept, and every rung passed over
 * is remembered with its reason for -v ("passed over: fentry: ...; kprobe: ...").
 * With a forced rung (--mechanism, --source) only that one is tried.
 */
#ifndef STK_CLIMB_H
#define STK_CLIMB_H

#include <stddef.h>

#include "core/ladder/ladder.h"

struct stk_climb {
	enum stk_attach_class cls;
	const char *forced;     /* rung name to use or fail, or NULL for the first that works */
	const char *forced_opt; /* the option that forced it, for errors: "--mechanism" */
	/* Tries rung r: 0, or -1 with why set and nothing left attached. */
	int (*attempt)(void *ctx, const struct stk_rung *r, char *why, size_t len);
	void *ctx;
	/* results */
	const struct stk_rung *chosen;
	char tried[768];
};

/*
 * Tries the n rungs of order (from stk_ladder_order). 0 with c->chosen set;
 * -1 with err: the forced rung is unknown or failed, or none worked
 * ("NONE_MSG (what was tried)").
 */
int stk_climb(struct stk_climb *c, const struct stk_rung *const *order, size_t n, const char *none_msg, char *err,
	      size_t errlen);
/* stk_climb over the class's own order (stk_ladder_order with no target count). */
int stk_climb_all(struct stk_climb *c, const char *none_msg, char *err, size_t errlen);
/* For -v lines: " (passed over: TRIED)" into buf, or "" when nothing was passed over. Returns buf. */
const char *stk_climb_passed_over(const char *tried, char *buf, size_t len);

#endif
