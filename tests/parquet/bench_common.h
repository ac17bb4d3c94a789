/* What the Parquet benchmarks (bench/parquet_bench.c, bench/eventlog_bench.c) share. */
#ifndef STK_TEST_BENCH_COMMON_H
#define STK_TEST_BENCH_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include <stdbool.h>

#include "core/parquet/parquet_schema.h"
#include "tests/parquet/event_stream.h"

/*
 * The events a bench writes: "ring" from 65,536 made beforehand (times
 * keep increasing), so the generator's cost stays out of the timing; "live"
 * each made as it goes (memory stays the writer's own, for the RSS figure).
 */
struct bench_events {
	struct event_stream s;
	struct event *ring;
	bool live;
};
/* 0, or -1 out of memory. */
int bench_events_init(struct bench_events *b, bool live);
/* The i-th event into e. */
void bench_events_next(struct bench_events *b, unsigned long long i, struct event *e);
void bench_events_free(struct bench_events *b);
/* The line the benches print: "events N seconds S bytes B maxrss_kb K columns ...". */
void bench_report(FILE *f, unsigned long long n, double seconds, const struct stk_pq_column *cols, size_t n_cols);

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/*
 * Prints " columns name=bytes,... footer=N groups=N": each column's
 * compressed bytes summed over the row groups of the footer at the end of f
 * (size bytes long), cols[0..n) naming them. Nothing when the footer does not read.
 */
void bench_column_bytes(FILE *f, long size, const struct stk_pq_column *cols, size_t n);

#endif
