/*
 * A synthetic stream of stk events for the Parquet tests and benchmark:
 * off-CPU-like (times increasing with random gaps, weights log-uniform
 * between 1 us and 100 ms, 50 threads in 5 processes, 500 stacks of
 * 200-2000 bytes with a skewed popularity, a span on 1 event in 20), the
 * same for a given seed on every run.
 */
#ifndef STK_TEST_EVENT_STREAM_H
#define STK_TEST_EVENT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/parquet/parquet_schema.h"

enum { EV_TIME, EV_PID, EV_TID, EV_COMM, EV_CPU, EV_EVENT, EV_WEIGHT, EV_UNIT, EV_STACK, EV_SPAN, EV_COLUMNS };

extern const struct stk_pq_column stk_event_columns[EV_COLUMNS];

#define EV_THREADS 50
#define EV_STACKS 500
#define EV_SPANS 64

struct event {
	int64_t time, weight;
	int32_t pid, tid, cpu;
	uint16_t thread, stack;
	int16_t span;  /* -1: none */
};

struct event_stream {
	uint64_t rng;
	int64_t now;
	char *stack_text[EV_STACKS];
	size_t stack_len[EV_STACKS];
	char comm[EV_THREADS / 10][16];
	char span[EV_SPANS][24];
	int32_t last_cpu[EV_THREADS];
};

/* 0, or -1 out of memory. */
int event_stream_init(struct event_stream *s, uint64_t seed);
void event_stream_free(struct event_stream *s);
void event_stream_next(struct event_stream *s, struct event *e);

struct stk_pq_writer;
/*
 * Sets the row's columns from e and ends it. Stacks, comms and constant
 * strings go by key (as stk has ids for them), or with hash_stacks the
 * stack by its text; spans are always hashed.
 */
int event_write(struct stk_pq_writer *w, const struct event_stream *s, const struct event *e, bool hash_stacks);

#endif
