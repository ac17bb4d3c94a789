/*
 * One column of the row group being written: the current page's values,
 * the dictionary, the finished (compressed) pages, and the statistics.
 * Internal to core/parquet/ (the writer owns one per column).
 */
#ifndef STK_PQ_COLUMN_WRITER_H
#define STK_PQ_COLUMN_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/byte_buf.h"
#include "core/base/gzip.h"
#include "core/parquet/dictionary.h"
#include "core/parquet/footer.h"
#include "core/parquet/parquet_schema.h"

struct stk_pq_colw {
	enum stk_pq_type type;
	bool nullable, dict_encoded;
	uint32_t *def;          /* page rows: 1 value, 0 null (nullable columns) */
	uint32_t *idx;          /* page values: dictionary indices (strings, INT32) */
	int64_t *i64;           /* page values: INT64, TIMESTAMP */
	uint32_t n_vals;        /* values (not nulls) in the page so far */
	struct stk_pq_dict dict;
	struct stk_buf pages; /* the row group's data pages: header and gzip body each */
	int64_t pages_uncompressed; /* the same with bodies uncompressed */
	int64_t nulls;
	bool has_min_max;
	int64_t min, max;
};

/* Scratch space every column's page encoding shares (owned by the writer). */
struct stk_pq_page_scratch {
	struct stk_buf body, zbody, header;
	struct stk_deflater deflater;
	bool stored;            /* pages as they are (codec UNCOMPRESSED), not gzipped */
};

/* 0, or -1 out of memory. page_rows: the most rows a page takes. */
int stk_pq_colw_init(struct stk_pq_colw *c, const struct stk_pq_column *col, uint32_t page_rows);
void stk_pq_colw_free(struct stk_pq_colw *c);

static inline void stk_pq_colw_stat(struct stk_pq_colw *c, int64_t v)
{
	if (!c->has_min_max) {
		c->has_min_max = true;
		c->min = c->max = v;
	} else if (v < c->min) {
		c->min = v;
	} else if (v > c->max) {
		c->max = v;
	}
}

/* Encodes and compresses the page of `rows` rows into c->pages. 0, or -1 (zlib, memory). */
int stk_pq_colw_end_page(struct stk_pq_colw *c, uint32_t rows, struct stk_pq_page_scratch *s);

/*
 * Writes the column chunk to out at file offset *offset (advanced): its
 * dictionary page (when it has one), then its data pages; its metadata goes
 * to *meta. Then c is empty for the next row group. crc (NULL: none) takes
 * the CRC-32 of the bytes written on (a checkpoint covers them). 0; -1 out
 * of memory or zlib; -2 a write failed (errno says why).
 */
int stk_pq_colw_end_chunk(struct stk_pq_colw *c, FILE *out, int64_t *offset, uint32_t *crc, int64_t rows,
			  struct stk_pq_chunk_meta *meta, struct stk_pq_page_scratch *s);

#endif
