/*
 * Writing an stk event log as a Parquet file, one row at a time.
 *
 *   struct stk_pq_writer *w = stk_pq_writer_new(f, cols, n, NULL, err, sizeof(err));
 *   for each event:
 *       stk_pq_set_int64(w, TIME, t); stk_pq_set_string_keyed(w, STACK, id, s, len); ...
 *       stk_pq_end_row(w);
 *   stk_pq_set_metadata(w, "stk.schema", "1");
 *   if (stk_pq_writer_close(w, err, sizeof(err)) < 0) report err;
 *
 * The file: data pages v1; strings and INT32 columns dictionary-encoded
 * (RLE_DICTIONARY over a PLAIN dictionary page, each distinct value once per
 * row group) and gzip-compressed; INT64 and TIMESTAMP columns
 * DELTA_BINARY_PACKED and stored uncompressed (bit-packed already); nulls as RLE/bit-packed definition levels; min, max
 * and null count per column chunk (null count only for strings). Row groups
 * are written as the rows come: one ends at opts.row_group_rows rows or once
 * its pages and dictionaries hold opts.row_group_bytes, so memory stays
 * bounded however long the capture runs. stk_pq_writer_close writes the
 * last row group and the footer.
 *
 * Ownership: the writer never closes or flushes `out` beyond what close
 * says; column names, metadata and string values are copied when passed.
 * The writer is not thread-safe.
 *
 * Errors: setters and end_row record the first error (a write that failed,
 * a value of the wrong type, a required column left unset, out of memory);
 * from then on everything is a no-op, end_row returns -1 and close returns
 * -1 with the reason.
 */
#ifndef STK_PARQUET_WRITER_H
#define STK_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/parquet/parquet_schema.h"

struct stk_pq_writer_opts {
	uint32_t row_group_rows;  /* 0: STK_PQ_DEFAULT_GROUP_ROWS */
	uint32_t row_group_bytes; /* 0: STK_PQ_DEFAULT_GROUP_BYTES; at most STK_PQ_MAX_GROUP_BYTES */
	uint32_t page_rows;       /* 0: STK_PQ_DEFAULT_PAGE_ROWS; at most 131072 */
	int gzip_level;           /* 0: STK_PQ_DEFAULT_GZIP_LEVEL; else zlib's 1..9; -1: pages
				     stored uncompressed (for tests of readers) */
	const char *created_by;   /* the footer's created_by; NULL: "stk" */
	bool checkpoints;         /* after each row group its checkpoint (checkpoint.h), then a fflush:
				     a crash leaves the file recoverable to its last whole group
				     (parquet_salvage.h) */
};

#define STK_PQ_DEFAULT_GROUP_ROWS (1u << 20)
#define STK_PQ_DEFAULT_GROUP_BYTES (24u << 20)
#define STK_PQ_MAX_GROUP_BYTES (48u << 20)
#define STK_PQ_DEFAULT_PAGE_ROWS 16384u
#define STK_PQ_DEFAULT_GZIP_LEVEL 6
/* The longest string value (a stack's text is a few KB). */
#define STK_PQ_MAX_STRING (1u << 20)

struct stk_pq_writer;

/*
 * A writer of the n columns cols (1..64, distinct non-empty names) to out,
 * which must be positioned at offset 0 of an empty file (offsets in the
 * footer count from there). opts may be NULL. Writes the leading magic.
 * NULL with the reason in err when the schema or opts are invalid, memory
 * runs out or the first write fails.
 */
struct stk_pq_writer *stk_pq_writer_new(FILE *out, const struct stk_pq_column *cols, size_t n,
					const struct stk_pq_writer_opts *opts, char *err, size_t err_len);

/*
 * The current row's value of column col. Each column takes the setter of its
 * type (STK_PQ_TIMESTAMP_NS and STK_PQ_INT64 take stk_pq_set_int64); a
 * column left unset is NULL (an error for a required column). Setting a
 * column twice in a row keeps the last value.
 */
void stk_pq_set_int32(struct stk_pq_writer *w, size_t col, int32_t v);
void stk_pq_set_int64(struct stk_pq_writer *w, size_t col, int64_t v);
/* A string of len bytes (may hold NULs, may be empty), found by hashing its bytes. */
void stk_pq_set_string(struct stk_pq_writer *w, size_t col, const char *s, size_t len);
/*
 * The same without hashing or comparing: the caller guarantees that key
 * names exactly one string in this column for the writer's whole life (a
 * stack id, an interned pointer). Only the length is checked: a key seen
 * before with another length is an error. Strings set with and without keys
 * in one column are found apart (a value may then be stored twice).
 */
void stk_pq_set_string_keyed(struct stk_pq_writer *w, size_t col, uint64_t key, const char *s, size_t len);
/*
 * stk_pq_set_string that says where the string went: its entry in this row
 * group's dictionary, for stk_pq_set_string_index on later rows of the
 * group. -1 on failure (recorded for stk_pq_end_row).
 */
int64_t stk_pq_set_string_entry(struct stk_pq_writer *w, size_t col, const char *s, size_t len);
/* The string at entry index of this row group's dictionary: no hashing, no lookup. */
void stk_pq_set_string_index(struct stk_pq_writer *w, size_t col, uint32_t index);
/* Ends the row (0), or -1 once an error has been recorded. May write a row group. */
int stk_pq_end_row(struct stk_pq_writer *w);

/*
 * Writes the rows so far as a row group now (nothing when there are none):
 * for a caller that wants what it captured on disk, e.g. every minute.
 * 0 or -1.
 */
int stk_pq_flush(struct stk_pq_writer *w);

/*
 * A writer with checkpoints: the rows so far as a row group with its
 * checkpoint, or (no rows since the last) a checkpoint of the metadata
 * alone, so that a file recovered later says it; fflushed. The caller
 * syncs the file for power loss. 0 or -1.
 */
int stk_pq_checkpoint(struct stk_pq_writer *w);

/* The errno of the write that failed (ENOSPC, EDQUOT, EIO...), or 0 when none did. */
int stk_pq_writer_errno(const struct stk_pq_writer *w);
/* With checkpoints: the file's bytes up to the end of the last one (the leading magic before the first). */
uint64_t stk_pq_writer_checkpointed(const struct stk_pq_writer *w);

/* Adds a key/value pair to the footer's metadata (copied; a key set twice keeps the last). 0 or -1. */
int stk_pq_set_metadata(struct stk_pq_writer *w, const char *key, const char *value);

/* Rows ended so far, and file bytes written so far. */
uint64_t stk_pq_writer_rows(const struct stk_pq_writer *w);
uint64_t stk_pq_writer_bytes(const struct stk_pq_writer *w);

/*
 * Writes what is left, the footer and the closing magic, fflushes out (but
 * leaves it open), and frees w. 0, or -1 with the reason in err (the first
 * error of the writer's life, or of these writes) and errno that of the
 * write that failed (0: none did). w may be NULL (-1).
 */
int stk_pq_writer_close(struct stk_pq_writer *w, char *err, size_t err_len);

/* Frees w without writing anything more (an abandoned file stays incomplete). */
void stk_pq_writer_free(struct stk_pq_writer *w);

#endif
