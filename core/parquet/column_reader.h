/*
 * Reading one column chunk row by row: its pages one at a time (header,
 * body, gunzip, levels, values), its dictionary, and the current row's
 * value. Every size comes from the file and is checked against the chunk's
 * bytes and the limits of format.h before anything is allocated. Internal
 * to core/parquet/ (the reader owns one per column it returns).
 */
#ifndef STK_PQ_COLUMN_READER_H
#define STK_PQ_COLUMN_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/gzip.h"
#include "core/parquet/footer.h"
#include "core/parquet/parquet_schema.h"

struct stk_pq_colr {
	const char *name;          /* for messages */
	enum stk_pq_type type;
	int32_t physical, codec;
	bool optional;             /* the file's column has definition levels */
	bool absent;               /* an added column the file lacks: NULL in every row, never read */
	int fd;
	int64_t pos, end;          /* the chunk's bytes not read yet */
	int64_t rows_left;         /* rows of the row group not in a page yet */
	/* the dictionary: numbers, or strings (each NUL-terminated in dict_bytes) */
	bool has_dict, seen_data;
	uint32_t dict_n;
	int64_t *dict_num;
	uint32_t *dict_off, *dict_len;
	char *dict_bytes;
	/* the current page */
	struct stk_buf raw, plain;  /* as stored, and uncompressed */
	uint32_t *def;             /* page rows: 1 value, 0 null (optional columns) */
	int64_t *num;              /* page values: numbers */
	uint32_t *ids;             /* page values: dictionary indices (strings) */
	size_t cap_def, cap_num, cap_ids;
	uint32_t page_rows, page_row, value;
	/* the current row */
	bool null;
	int64_t v;
	uint32_t id;
};

/*
 * Starts reading the chunk `meta` (already checked to lie within the file's
 * data) of a row group of `rows` rows.
 */
void stk_pq_colr_start(struct stk_pq_colr *c, const struct stk_pq_chunk_meta *meta, int64_t rows);
/* Moves to the next row. 0, or -1 with the reason in err. */
int stk_pq_colr_next(struct stk_pq_colr *c, struct stk_inflater *z, char *err, size_t err_len);
void stk_pq_colr_free(struct stk_pq_colr *c);

#endif
