/*
 * threadstate's terminal table: one block per interval with its time range
 * (UTC), the number of samples and the source, then the top groups by
 * average active threads, one column per -g column.
 */
#ifndef STK_THREAD_TABLE_H
#define STK_THREAD_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "core/threads/thread_group.h"

struct stk_thread_table {
	const struct stk_group_spec *spec;
	const struct stk_group_row *rows;
	size_t n_rows;
	size_t top;        /* at most this many rows (0: all) */
	uint64_t samples;
	int64_t start_ns, end_ns; /* CLOCK_REALTIME of the interval */
	const char *source;
};

void stk_thread_table_print(FILE *out, const struct stk_thread_table *t);
/* "2026-11-22 01:30:05.123" (UTC, milliseconds) */
void stk_format_utc(int64_t wall_ns, char *buf, size_t len);

#endif
