/* Parquet files in memory for the unit tests: written by stk's writer, read from a memfd. */
#ifndef STK_TEST_PARQUET_FILES_H
#define STK_TEST_PARQUET_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "core/parquet/parquet_writer.h"

struct pq_bytes {
	uint8_t *data;
	size_t len;
};

/* Sets row i's columns (the helper ends the row). */
typedef void pq_row_fn(struct stk_pq_writer *w, size_t i);

/*
 * Writes rows 0..n-1 through row() with the writer's options o (may be
 * NULL) and returns the file's bytes in out (free out->data). 0, or -1 with
 * the writer's reason in err.
 */
int pq_write(const struct stk_pq_column *cols, size_t n_cols, const struct stk_pq_writer_opts *o, pq_row_fn *row,
	     size_t n, struct pq_bytes *out, char *err, size_t err_len);
/* An fd holding exactly [data, data + len), for the reader; the caller closes it. */
int pq_memfd(const uint8_t *data, size_t len);

#endif
