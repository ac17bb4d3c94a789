/* What the Parquet benchmarks (bench/parquet_bench.c, bench/eventlog_bench.c) share. */
#ifndef STK_TEST_BENCH_COMMON_H
#define STK_TEST_BENCH_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "core/parquet/parquet_schema.h"

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/*
 * Prints " columns name=bytes,... footer=N groups=N": each column's
 * compressed bytes summed over the row groups of the footer at the end of f
 * (size bytes long), cols[0..n) naming them. Nothing when the footer does not read.
 */
void bench_column_bytes(FILE *f, long size, const struct stk_pq_column *cols, size_t n);

#endif
