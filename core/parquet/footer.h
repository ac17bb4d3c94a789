/*
 * Parquet's Thrift structures, as far as stk uses them: the footer
 * (FileMetaData: schema, row groups, column chunks, statistics, key/value
 * metadata) and page headers; encoding for the writer, bounded decoding for
 * the reader. Internal to core/parquet/.
 */
#ifndef STK_PQ_FOOTER_H
#define STK_PQ_FOOTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"
#include "core/parquet/parquet_schema.h"

/* One column chunk's ColumnMetaData (offsets are file offsets). */
struct stk_pq_chunk_meta {
	int32_t physical;            /* enum stk_pq_physical */
	int32_t codec;               /* enum stk_pq_codec */
	uint32_t encodings;          /* bit (1 << enum stk_pq_encoding) per encoding used */
	int64_t num_values;
	int64_t total_uncompressed, total_compressed;
	int64_t data_page_offset;
	int64_t dict_page_offset;    /* -1: no dictionary page */
	int64_t null_count;          /* -1: not known */
	bool has_min_max;
	int64_t min, max;            /* INT32 and INT64 columns */
	const uint8_t *path;         /* reader: the column's name in path_in_schema */
	size_t path_len;
};

struct stk_pq_group_meta {
	int64_t num_rows;
	int64_t total_byte_size;     /* uncompressed */
	int64_t file_offset;
	int64_t total_compressed;
	struct stk_pq_chunk_meta *chunks;
	size_t n_chunks;
};

/* One schema element as read (the writer builds them from struct stk_pq_column). */
struct stk_pq_schema_elem {
	const uint8_t *name;
	size_t name_len;
	int32_t physical;            /* -1: none (a group) */
	int32_t repetition;          /* -1: not given */
	int32_t converted;           /* -1: none */
	int32_t num_children;        /* -1: not given (a leaf) */
	int32_t logical;             /* field id in LogicalType, 0: none */
	int32_t time_unit;           /* TIMESTAMP: STK_PQ_UNIT_*, 0: none */
	bool utc;                    /* TIMESTAMP: isAdjustedToUTC */
};

struct stk_pq_kv {
	const uint8_t *key, *value;  /* value NULL: absent */
	size_t key_len, value_len;
};

/* A decoded footer; its pointers point into the footer's bytes. */
struct stk_pq_footer {
	int32_t version;
	int64_t num_rows;
	struct stk_pq_schema_elem *schema;
	size_t n_schema;
	struct stk_pq_group_meta *groups;
	size_t n_groups;
	struct stk_pq_kv *kv;
	size_t n_kv;
};

/* What the writer says about its metadata. */
struct stk_pq_footer_in {
	const struct stk_pq_column *cols;
	size_t n_cols;
	const struct stk_pq_group_meta *groups;
	size_t n_groups;
	int64_t num_rows;
	const char *const *kv;       /* n_kv pairs: kv[2i] key, kv[2i + 1] value */
	size_t n_kv;
	const char *created_by;
};

/* Appends FileMetaData to out. 0, or -1 (out->oom). */
int stk_pq_footer_encode(struct stk_buf *out, const struct stk_pq_footer_in *in);
/*
 * Decodes FileMetaData from [p, p + n). Fields stk does not know are
 * skipped. 0, or -1 with a short reason in *err. Free with
 * stk_pq_footer_free (also after a failure).
 */
int stk_pq_footer_decode(const uint8_t *p, size_t n, struct stk_pq_footer *f, const char **err);
void stk_pq_footer_free(struct stk_pq_footer *f);

struct stk_pq_page_header {
	int32_t type;                /* enum stk_pq_page_type */
	int32_t uncompressed_size, compressed_size;
	int32_t num_values;          /* DATA_PAGE or DICTIONARY_PAGE: -1 when missing */
	int32_t encoding;            /* of the values (or the dictionary) */
	int32_t def_encoding;        /* DATA_PAGE: of the definition levels */
};

/* Appends a PageHeader (a DATA_PAGE with RLE levels, or a DICTIONARY_PAGE). */
void stk_pq_page_header_encode(struct stk_buf *out, const struct stk_pq_page_header *h);
/* Decodes a PageHeader from [p, p + n); *used: its length. 0, or -1 with *err. */
int stk_pq_page_header_decode(const uint8_t *p, size_t n, struct stk_pq_page_header *h, size_t *used,
			      const char **err);

#endif
