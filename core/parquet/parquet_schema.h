/*
 * The columns of an stk Parquet file, shared by the writer and the reader:
 * a flat list of named columns of four types, each required or nullable.
 */
#ifndef STK_PARQUET_SCHEMA_H
#define STK_PARQUET_SCHEMA_H

#include <stdbool.h>

enum stk_pq_type {
	STK_PQ_INT32,        /* INT32 */
	STK_PQ_INT64,        /* INT64 */
	STK_PQ_TIMESTAMP_NS, /* INT64, TIMESTAMP(NANOS, adjusted to UTC): ns since the Unix epoch */
	STK_PQ_STRING,       /* BYTE_ARRAY, STRING (UTF-8 by contract; not checked) */
};

struct stk_pq_column {
	const char *name;
	enum stk_pq_type type;
	bool nullable;
	bool added;    /* nullable, and absent from files written before it was: read there as NULL in every row */
};

/* "INT32", "TIMESTAMP", ... for messages. */
const char *stk_pq_type_name(enum stk_pq_type type);

#endif
