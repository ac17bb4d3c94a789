/*
 * Decoding the footer (FileMetaData) and page headers. Every list grows as
 * its elements parse, and an element missing a required field stops the
 * decoding at once, so memory stays a small multiple of the input's size.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/parquet/footer.h"
#include "core/parquet/footer_fields.h"
#include "core/parquet/format.h"
#include "core/parquet/numbers.h"
#include "core/parquet/thrift_compact.h"

/* Where the walk through one struct's fields is, and which field ids it has seen. */
struct walk {
	int16_t last, id;
	uint8_t type;
	uint32_t seen;
};

static int next_field(struct stk_thrift_reader *r, struct walk *w)
{
	int rc = stk_thrift_next_field(r, &w->last, &w->id, &w->type);

	if (rc > 0 && w->id > 0 && w->id < 32)
		w->seen |= 1u << w->id;
	return rc;
}

/* Walks the fields of one struct: `rc` is 1 per field, then 0 at its end or -1. */
#define FOR_EACH_FIELD(r, w, rc) for ((w) = (struct walk){ 0 }; ((rc) = next_field((r), &(w))) > 0;)

static int want(struct stk_thrift_reader *r, uint8_t type, uint8_t expected)
{
	return type == expected ? 0 : stk_thrift_fail(r, "a footer field has the wrong type");
}

static int field_i32(struct stk_thrift_reader *r, uint8_t type, int32_t *v)
{
	return want(r, type, STK_THRIFT_I32) < 0 ? -1 : stk_thrift_read_i32(r, v);
}

static int field_i64(struct stk_thrift_reader *r, uint8_t type, int64_t *v)
{
	return want(r, type, STK_THRIFT_I64) < 0 ? -1 : stk_thrift_read_i64(r, v);
}

static int field_binary(struct stk_thrift_reader *r, uint8_t type, const uint8_t **p, size_t *n)
{
	return want(r, type, STK_THRIFT_BINARY) < 0 ? -1 : stk_thrift_read_binary(r, p, n);
}

/* A struct-typed field or list element: entered; the caller leaves it after its fields. */
static int enter_struct(struct stk_thrift_reader *r, uint8_t type)
{
	return want(r, type, STK_THRIFT_STRUCT) < 0 ? -1 : stk_thrift_enter(r);
}

/* A list of structs: its length, after checking the element type. */
static int struct_list(struct stk_thrift_reader *r, uint8_t type, uint32_t *n)
{
	uint8_t elem;

	if (want(r, type, STK_THRIFT_LIST) < 0 || stk_thrift_read_list(r, &elem, n) < 0)
		return -1;
	return want(r, elem, STK_THRIFT_STRUCT);
}

#define BIT(id) (1u << (id))

/* Fields a struct must have: the bits of their ids, checked at its end. */
static int require(struct stk_thrift_reader *r, uint32_t seen, uint32_t needed, const char *what)
{
	return (seen & needed) == needed ? 0 : stk_thrift_fail(r, what);
}

/* Leaves a struct whose walk ended with rc, which must have had the fields `needed`. */
static int end_struct(struct stk_thrift_reader *r, int rc, const struct walk *w, uint32_t needed, const char *what)
{
	if (rc < 0)
		return -1;
	stk_thrift_leave(r);
	return require(r, w->seen, needed, what);
}

struct raw_stats {
	const uint8_t *min, *max;
	size_t min_n, max_n;
	int64_t null_count;
};

static int read_stats(struct stk_thrift_reader *r, struct raw_stats *s)
{
	const uint8_t *p;
	size_t n;
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == ST_NULL_COUNT) {
			rc = field_i64(r, w.type, &s->null_count);
		} else if (w.id == ST_MIN || w.id == ST_MAX || w.id == ST_MIN_VALUE || w.id == ST_MAX_VALUE) {
			rc = field_binary(r, w.type, &p, &n);
			/* min_value/max_value (5, 6) win over the deprecated min/max (1, 2) */
			if (w.id == ST_MIN_VALUE || (w.id == ST_MIN && !s->min)) {
				s->min = p;
				s->min_n = n;
			} else if (w.id == ST_MAX_VALUE || (w.id == ST_MAX && !s->max)) {
				s->max = p;
				s->max_n = n;
			}
		} else {
			rc = stk_thrift_skip(r, w.type);
		}
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, 0, NULL);
}

/* An integer statistic: 4 or 8 little-endian bytes by the column's type. */
static bool stat_value(const uint8_t *p, size_t n, int32_t physical, int64_t *v)
{
	if (physical == STK_PQ_PHYS_INT32 && n == 4)
		*v = (int32_t)stk_pq_get_le32(p);
	else if (physical == STK_PQ_PHYS_INT64 && n == 8)
		*v = (int64_t)stk_pq_get_le64(p);
	else
		return false;
	return true;
}

static int read_encodings(struct stk_thrift_reader *r, uint8_t type, uint32_t *mask)
{
	uint8_t elem;
	uint32_t n;
	int32_t e;

	if (want(r, type, STK_THRIFT_LIST) < 0 || stk_thrift_read_list(r, &elem, &n) < 0 ||
	    want(r, elem, STK_THRIFT_I32) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (stk_thrift_read_i32(r, &e) < 0)
			return -1;
		if (e >= 0 && e < 32)
			*mask |= 1u << e;
	}
	return 0;
}

static int read_path(struct stk_thrift_reader *r, uint8_t type, struct stk_pq_chunk_meta *c)
{
	uint8_t elem;
	uint32_t n;

	if (want(r, type, STK_THRIFT_LIST) < 0 || stk_thrift_read_list(r, &elem, &n) < 0 ||
	    want(r, elem, STK_THRIFT_BINARY) < 0)
		return -1;
	if (n != 1)
		return stk_thrift_fail(r, "a nested column (path of more than one name)");
	return stk_thrift_read_binary(r, &c->path, &c->path_len);
}

static int read_column_meta(struct stk_thrift_reader *r, struct stk_pq_chunk_meta *c)
{
	struct raw_stats s = { .null_count = -1 };
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		switch (w.id) {
		case CMD_TYPE: rc = field_i32(r, w.type, &c->physical); break;
		case CMD_ENCODINGS: rc = read_encodings(r, w.type, &c->encodings); break;
		case CMD_PATH: rc = read_path(r, w.type, c); break;
		case CMD_CODEC: rc = field_i32(r, w.type, &c->codec); break;
		case CMD_NUM_VALUES: rc = field_i64(r, w.type, &c->num_values); break;
		case CMD_UNCOMPRESSED: rc = field_i64(r, w.type, &c->total_uncompressed); break;
		case CMD_COMPRESSED: rc = field_i64(r, w.type, &c->total_compressed); break;
		case CMD_DATA_PAGE_OFFSET: rc = field_i64(r, w.type, &c->data_page_offset); break;
		case CMD_DICT_PAGE_OFFSET: rc = field_i64(r, w.type, &c->dict_page_offset); break;
		case CMD_STATISTICS: rc = enter_struct(r, w.type) < 0 ? -1 : read_stats(r, &s); break;
		default: rc = stk_thrift_skip(r, w.type); break;
		}
		if (rc < 0)
			return -1;
	}
	c->null_count = s.null_count;
	c->has_min_max = s.min && s.max && stat_value(s.min, s.min_n, c->physical, &c->min) &&
			 stat_value(s.max, s.max_n, c->physical, &c->max);
	return end_struct(r, rc, &w,
			  BIT(CMD_TYPE) | BIT(CMD_PATH) | BIT(CMD_CODEC) | BIT(CMD_NUM_VALUES) | BIT(CMD_COMPRESSED) |
				  BIT(CMD_DATA_PAGE_OFFSET),
			  "a column chunk's metadata lacks a required field");
}

static int read_column_chunk(struct stk_thrift_reader *r, struct stk_pq_chunk_meta *c)
{
	struct walk w;
	int rc;

	*c = (struct stk_pq_chunk_meta){ .dict_page_offset = -1, .null_count = -1 };
	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == CC_META_DATA) {
			rc = enter_struct(r, w.type) < 0 ? -1 : read_column_meta(r, c);
		} else if (w.id == 1 || w.id >= 8) {
			/* file_path, encryption: data stk cannot reach */
			return stk_thrift_fail(r, "a column chunk in another file or encrypted");
		} else {
			rc = stk_thrift_skip(r, w.type);
		}
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, BIT(CC_META_DATA), "a column chunk without metadata");
}

static int read_row_group(struct stk_thrift_reader *r, struct stk_pq_group_meta *g)
{
	uint32_t n;
	size_t cap = 0;
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == RG_COLUMNS && !g->chunks) {
			if (struct_list(r, w.type, &n) < 0)
				return -1;
			for (uint32_t i = 0; i < n; i++) {
				if (stk_grow((void **)&g->chunks, &cap, g->n_chunks + 1, sizeof(*g->chunks)) < 0)
					return stk_thrift_fail(r, "out of memory");
				if (stk_thrift_enter(r) < 0 || read_column_chunk(r, &g->chunks[g->n_chunks++]) < 0)
					return -1;
			}
		} else if (w.id == RG_TOTAL_BYTE_SIZE) {
			rc = field_i64(r, w.type, &g->total_byte_size);
		} else if (w.id == RG_NUM_ROWS) {
			rc = field_i64(r, w.type, &g->num_rows);
		} else {
			rc = stk_thrift_skip(r, w.type);
		}
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, BIT(RG_COLUMNS) | BIT(RG_NUM_ROWS), "a row group lacks a required field");
}

static int read_timestamp(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	struct walk w, unit;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == TS_UTC && (w.type == STK_THRIFT_TRUE || w.type == STK_THRIFT_FALSE)) {
			e->utc = w.type == STK_THRIFT_TRUE;
		} else if (w.id == TS_UNIT) {
			/* a union: its one field's id names the unit */
			unit = (struct walk){ 0 };
			if (enter_struct(r, w.type) < 0 || next_field(r, &unit) <= 0 || stk_thrift_skip(r, unit.type) < 0)
				return stk_thrift_fail(r, "a malformed time unit");
			e->time_unit = unit.id;
			if (next_field(r, &unit) != 0)
				return stk_thrift_fail(r, "a malformed time unit");
			stk_thrift_leave(r);
		} else if (stk_thrift_skip(r, w.type) < 0) {
			return -1;
		}
	}
	return end_struct(r, rc, &w, 0, NULL);
}

static int read_logical(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		e->logical = w.id;
		if (w.id == STK_PQ_LOGICAL_TIMESTAMP)
			rc = enter_struct(r, w.type) < 0 ? -1 : read_timestamp(r, e);
		else
			rc = stk_thrift_skip(r, w.type);
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, 0, NULL);
}

static int read_schema_elem(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	struct walk w;
	int rc;

	*e = (struct stk_pq_schema_elem){ .physical = -1, .repetition = -1, .converted = -1, .num_children = -1 };
	FOR_EACH_FIELD(r, w, rc) {
		switch (w.id) {
		case SE_TYPE: rc = field_i32(r, w.type, &e->physical); break;
		case SE_REPETITION: rc = field_i32(r, w.type, &e->repetition); break;
		case SE_NAME: rc = field_binary(r, w.type, &e->name, &e->name_len); break;
		case SE_NUM_CHILDREN: rc = field_i32(r, w.type, &e->num_children); break;
		case SE_CONVERTED: rc = field_i32(r, w.type, &e->converted); break;
		case SE_LOGICAL: rc = enter_struct(r, w.type) < 0 ? -1 : read_logical(r, e); break;
		default: rc = stk_thrift_skip(r, w.type); break;
		}
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, BIT(SE_NAME), "a schema element without a name");
}

static int read_kv(struct stk_thrift_reader *r, struct stk_pq_kv *kv)
{
	struct walk w;
	int rc;

	*kv = (struct stk_pq_kv){ 0 };
	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == KV_KEY)
			rc = field_binary(r, w.type, &kv->key, &kv->key_len);
		else if (w.id == KV_VALUE)
			rc = field_binary(r, w.type, &kv->value, &kv->value_len);
		else
			rc = stk_thrift_skip(r, w.type);
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, BIT(KV_KEY), "a key/value pair without a key");
}

/* Reads a list of structs into a growing array, one element at a time. */
#define READ_LIST(r, type, array, count, read_one)                                                      \
	do {                                                                                             \
		uint32_t n_;                                                                             \
		size_t cap_ = 0;                                                                         \
		if ((array) || struct_list((r), (type), &n_) < 0)                                        \
			return stk_thrift_fail((r), "a footer list given twice or malformed");           \
		for (uint32_t i_ = 0; i_ < n_; i_++) {                                                   \
			if (stk_grow((void **)&(array), &cap_, (count) + 1, sizeof(*(array))) < 0)       \
				return stk_thrift_fail((r), "out of memory");                            \
			memset(&(array)[(count)], 0, sizeof(*(array)));                                  \
			if (stk_thrift_enter(r) < 0 || read_one((r), &(array)[(count)++]) < 0)            \
				return -1;                                                               \
		}                                                                                        \
	} while (0)

static int read_file_meta(struct stk_thrift_reader *r, struct stk_pq_footer *f)
{
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		switch (w.id) {
		case FMD_VERSION: rc = field_i32(r, w.type, &f->version); break;
		case FMD_SCHEMA: READ_LIST(r, w.type, f->schema, f->n_schema, read_schema_elem); break;
		case FMD_NUM_ROWS: rc = field_i64(r, w.type, &f->num_rows); break;
		case FMD_ROW_GROUPS: READ_LIST(r, w.type, f->groups, f->n_groups, read_row_group); break;
		case FMD_KV: READ_LIST(r, w.type, f->kv, f->n_kv, read_kv); break;
		default: rc = stk_thrift_skip(r, w.type); break;
		}
		if (rc < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	return require(r, w.seen, BIT(FMD_SCHEMA) | BIT(FMD_NUM_ROWS) | BIT(FMD_ROW_GROUPS),
		       "the footer lacks a required field");
}

int stk_pq_footer_decode(const uint8_t *p, size_t n, struct stk_pq_footer *f, const char **err)
{
	struct stk_thrift_reader r = { .p = p, .end = p + n };

	*f = (struct stk_pq_footer){ 0 };
	if (read_file_meta(&r, f) < 0) {
		*err = r.err ? r.err : "a malformed footer";
		return -1;
	}
	return 0;
}

void stk_pq_footer_free(struct stk_pq_footer *f)
{
	for (size_t g = 0; g < f->n_groups; g++)
		free(f->groups[g].chunks);
	free(f->groups);
	free(f->schema);
	free(f->kv);
	*f = (struct stk_pq_footer){ 0 };
}

static int read_data_header(struct stk_thrift_reader *r, struct stk_pq_page_header *h, bool dict)
{
	struct walk w;
	int rc;

	FOR_EACH_FIELD(r, w, rc) {
		if (w.id == DPH_NUM_VALUES) /* DICT_NUM_VALUES too */
			rc = field_i32(r, w.type, &h->num_values);
		else if (w.id == DPH_ENCODING) /* DICT_ENCODING too */
			rc = field_i32(r, w.type, &h->encoding);
		else if (w.id == DPH_DEF_ENCODING && !dict)
			rc = field_i32(r, w.type, &h->def_encoding);
		else
			rc = stk_thrift_skip(r, w.type);
		if (rc < 0)
			return -1;
	}
	return end_struct(r, rc, &w, 0, NULL);
}

int stk_pq_page_header_decode(const uint8_t *p, size_t n, struct stk_pq_page_header *h, size_t *used,
			      const char **err)
{
	struct stk_thrift_reader r = { .p = p, .end = p + n };
	struct walk w;
	int rc;

	*h = (struct stk_pq_page_header){ .type = -1, .num_values = -1, .encoding = -1, .def_encoding = -1 };
	FOR_EACH_FIELD(&r, w, rc) {
		if (w.id == PH_TYPE)
			rc = field_i32(&r, w.type, &h->type);
		else if (w.id == PH_UNCOMPRESSED)
			rc = field_i32(&r, w.type, &h->uncompressed_size);
		else if (w.id == PH_COMPRESSED)
			rc = field_i32(&r, w.type, &h->compressed_size);
		else if (w.id == PH_DATA || w.id == PH_DICT)
			rc = enter_struct(&r, w.type) < 0 ? -1 : read_data_header(&r, h, w.id == PH_DICT);
		else
			rc = stk_thrift_skip(&r, w.type);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		require(&r, w.seen, BIT(PH_TYPE) | BIT(PH_UNCOMPRESSED) | BIT(PH_COMPRESSED), "a page header lacks a size");
	if (r.err) {
		*err = r.err;
		return -1;
	}
	*used = (size_t)(r.p - p);
	return 0;
}
