/*
 * The columns of the Parquet fuzz target's seeds (pq_sample seeds) and of
 * what the target expects: one of each type, required and nullable.
 */
#ifndef STK_TEST_FUZZ_SCHEMA_H
#define STK_TEST_FUZZ_SCHEMA_H

#include "core/parquet/parquet_schema.h"

enum { FZ_TIME, FZ_PID, FZ_WEIGHT, FZ_STACK, FZ_SPAN, FZ_CPU, FZ_COLUMNS };

static const struct stk_pq_column fuzz_columns[FZ_COLUMNS] = {
	[FZ_TIME] = { "time", STK_PQ_TIMESTAMP_NS, false, false }, [FZ_PID] = { "pid", STK_PQ_INT32, false, false },
	[FZ_WEIGHT] = { "weight", STK_PQ_INT64, true, false },     [FZ_STACK] = { "stack", STK_PQ_STRING, false, false },
	[FZ_SPAN] = { "span", STK_PQ_STRING, true, false },        [FZ_CPU] = { "cpu", STK_PQ_INT32, true, false },
};

#endif
