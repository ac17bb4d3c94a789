/*
 * Reading back an stk event log written by parquet_writer.h, for
 * `stk report`: row groups one at a time (each with min/max per integer
 * column, to skip a group by time), rows one at a time within a group.
 *
 *   struct stk_pq_reader *r = stk_pq_reader_open(fd, cols, n, err, sizeof(err));
 *   if (!r) { fprintf(stderr, "stk: %s: %s\n", path, err); exit(2); }
 *   while ((rc = stk_pq_reader_next_group(r)) > 0) {
 *       if (stk_pq_reader_group_range(r, TIME, &lo, &hi) && hi < from) continue;
 *       while ((rc = stk_pq_reader_next_row(r)) > 0)
 *           use stk_pq_reader_int64(r, TIME), stk_pq_reader_string(r, STACK, &len), ...
 *       if (rc < 0) break;
 *   }
 *   if (rc < 0) report stk_pq_reader_error(r);
 *   stk_pq_reader_close(r);
 *
 * What it reads: data pages v1, uncompressed or GZIP; definition levels in
 * RLE; numbers PLAIN, DELTA_BINARY_PACKED or dictionary-encoded; strings
 * dictionary-encoded. Anything else (not Parquet, truncated, a schema that
 * lacks an expected column or gives it another type, another encoding or
 * codec, nested columns, sizes that do not fit the file or the limits of
 * format.h) is refused with a one-line reason. Memory is bounded by a few
 * pages per column, never by what the file claims.
 *
 * Ownership: the reader does not close fd. Strings and metadata values
 * point into the reader: strings live until the next stk_pq_reader_next_group
 * (or close), metadata until close. Not thread-safe.
 */
#ifndef STK_PARQUET_READER_H
#define STK_PARQUET_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/parquet/parquet_schema.h"

struct stk_pq_reader;

/*
 * Opens the Parquet file on fd (a regular file, read with pread) and checks
 * its schema against cols[0..n): each must be a column of the file with the
 * same name and type (an added one may be missing: NULL in every row); a
 * nullable one may be required in the file, not the other way round.
 * Columns the file has beyond them are ignored. Accessors
 * take the index in cols; cols (names too) must outlive the reader. NULL
 * with a one-line reason in err.
 */
struct stk_pq_reader *stk_pq_reader_open(int fd, const struct stk_pq_column *cols, size_t n, char *err,
					 size_t err_len);
void stk_pq_reader_close(struct stk_pq_reader *r);

/* Rows in the file, as its footer says; row groups. */
int64_t stk_pq_reader_rows(const struct stk_pq_reader *r);
size_t stk_pq_reader_groups(const struct stk_pq_reader *r);
/* The footer's value for key (NUL-terminated), or NULL. */
const char *stk_pq_reader_metadata(const struct stk_pq_reader *r, const char *key);

/* Moves to the next row group: 1, 0 past the last, -1 on error. */
int stk_pq_reader_next_group(struct stk_pq_reader *r);
int64_t stk_pq_reader_group_rows(const struct stk_pq_reader *r);
/* The group's smallest and largest value of an integer or timestamp column, when the file says. */
bool stk_pq_reader_group_range(const struct stk_pq_reader *r, size_t col, int64_t *min, int64_t *max);

/* Moves to the group's next row: 1, 0 past its last, -1 on error. */
int stk_pq_reader_next_row(struct stk_pq_reader *r);
bool stk_pq_reader_is_null(const struct stk_pq_reader *r, size_t col);
/* The row's value (0 when NULL): INT32; INT64 or TIMESTAMP. */
int32_t stk_pq_reader_int32(const struct stk_pq_reader *r, size_t col);
int64_t stk_pq_reader_int64(const struct stk_pq_reader *r, size_t col);
/* The row's string (NUL-terminated; it may hold NULs of its own) and its length, or NULL when NULL. */
const char *stk_pq_reader_string(const struct stk_pq_reader *r, size_t col, size_t *len);
/*
 * The string's index in the group's dictionary (equal strings, equal ids
 * within a group), to count by stack without hashing; UINT32_MAX when NULL.
 */
uint32_t stk_pq_reader_string_id(const struct stk_pq_reader *r, size_t col);

/* Why the last call failed. */
const char *stk_pq_reader_error(const struct stk_pq_reader *r);

#endif
