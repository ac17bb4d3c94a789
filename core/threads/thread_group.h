/*
 * threadstate's terminal view aggregation: over one interval, count how
 * many sampled threads fell in each group (the values of the -g columns);
 * a group's average active threads is its count divided by the number of
 * samples taken in the interval.
 */
#ifndef STK_THREAD_GROUP_H
#define STK_THREAD_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/threads/thread_columns.h"

#define STK_GROUP_MAX_COLS 16

struct stk_group_spec {
	enum stk_tcol cols[STK_GROUP_MAX_COLS];
	size_t n;
};

/* "state,comm": appends the columns to spec (duplicates ignored). 0, or -1 with err naming the bad one. */
int stk_group_spec_add(struct stk_group_spec *spec, const char *text, char *err, size_t len);

struct stk_group_row {
	char **values; /* n_values strings, one per -g column */
	size_t n_values;
	uint64_t count;
};

struct stk_group;

struct stk_group *stk_group_new(const struct stk_group_spec *spec);
/* Counts t in its group. 0 or -1 (out of memory). */
int stk_group_add(struct stk_group *g, const struct stk_thread *t);
/* One sample pass done (the divisor of the averages). */
void stk_group_end_sample(struct stk_group *g);
uint64_t stk_group_samples(const struct stk_group *g);
/* The groups, most threads first (ties by values); owned by g until reset. */
const struct stk_group_row *stk_group_sorted(struct stk_group *g, size_t *n);
/* Starts a new interval. */
void stk_group_reset(struct stk_group *g);
void stk_group_free(struct stk_group *g);

#endif
