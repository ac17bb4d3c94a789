/*
 * A recording summed into stacks the way the capture summed them: per
 * (process, thread where the capture kept threads apart, command, stack id
 * and, for pprof's labels, span) the weights added up and divided as the
 * capture divided them. Over the whole recording the result is the list the
 * capture printed, so every format prints the same.
 */
#ifndef STK_EVENT_TOTALS_H
#define STK_EVENT_TOTALS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/key_index.h"
#include "core/base/string_pool.h"
#include "core/eventlog/event_reader.h"

struct stk_ev_totals {
	struct stk_stack *stacks; /* frames point into the file's decoded stacks */
	size_t n, cap;
	struct stk_string_pool *spans; /* the entries' span labels */
	uint64_t *sums;  /* per entry, before dividing */
	uint32_t *stack_of; /* per entry: the file's stack index */
	size_t cap_sums, cap_stack_of;
};

/*
 * Reads f's rows passing flt into t; by_span keeps spans apart (each entry's
 * span set). 0, or -1 with err. The entries live until stk_ev_totals_free,
 * their frames until stk_ev_close(f).
 */
int stk_ev_totals_read(struct stk_ev_file *f, const struct stk_ev_filter *flt, bool by_span, struct stk_ev_totals *t,
		       char *err, size_t err_len);
void stk_ev_totals_free(struct stk_ev_totals *t);

#endif
