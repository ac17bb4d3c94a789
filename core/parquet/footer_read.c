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
#include "core/parquet/thrift_compact.h"

/* Walks the fields of one struct: `rc` is 1 per field, then 0 at its end or -1. */
#define FOR_EACH_FIELD(r, id, type, rc)                                                        \
	for (int16_t last_ = 0; ((rc) = stk_thrift_next_field((r), &last_, &(id), &(type))) > 0;)

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

/* Fields a struct must have: the bits of their ids, checked at its end. */
static int require(struct stk_thrift_reader *r, uint32_t seen, uint32_t needed, const char *what)
{
	return (seen & needed) == needed ? 0 : stk_thrift_fail(r, what);
}

#define BIT(id) (1u << (id))

struct raw_stats {
	const uint8_t *min, *max;
	size_t min_n, max_n;
	int64_t null_count;
};

static int read_stats(struct stk_thrift_reader *r, struct raw_stats *s)
{
	const uint8_t *p;
	size_t n;
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id == ST_NULL_COUNT) {
			rc = field_i64(r, type, &s->null_count);
		} else if (id == ST_MIN || id == ST_MAX || id == ST_MIN_VALUE || id == ST_MAX_VALUE) {
			rc = field_binary(r, type, &p, &n);
			/* min_value/max_value (5, 6) win over the deprecated min/max (1, 2) */
			if (id == ST_MIN_VALUE || (id == ST_MIN && !s->min)) {
				s->min = p;
				s->min_n = n;
			} else if (id == ST_MAX_VALUE || (id == ST_MAX && !s->max)) {
				s->max = p;
				s->max_n = n;
			}
		} else {
			rc = stk_thrift_skip(r, type);
		}
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	return rc;
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
	uint32_t seen = 0;
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id > 0 && id < 32)
			seen |= BIT(id);
		switch (id) {
		case CMD_TYPE: rc = field_i32(r, type, &c->physical); break;
		case CMD_ENCODINGS: rc = read_encodings(r, type, &c->encodings); break;
		case CMD_PATH: rc = read_path(r, type, c); break;
		case CMD_CODEC: rc = field_i32(r, type, &c->codec); break;
		case CMD_NUM_VALUES: rc = field_i64(r, type, &c->num_values); break;
		case CMD_UNCOMPRESSED: rc = field_i64(r, type, &c->total_uncompressed); break;
		case CMD_COMPRESSED: rc = field_i64(r, type, &c->total_compressed); break;
		case CMD_DATA_PAGE_OFFSET: rc = field_i64(r, type, &c->data_page_offset); break;
		case CMD_DICT_PAGE_OFFSET: rc = field_i64(r, type, &c->dict_page_offset); break;
		case CMD_STATISTICS: rc = enter_struct(r, type) < 0 ? -1 : read_stats(r, &s); break;
		default: rc = stk_thrift_skip(r, type); break;
		}
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	c->null_count = s.null_count;
	c->has_min_max = s.min && s.max && stat_value(s.min, s.min_n, c->physical, &c->min) &&
			 stat_value(s.max, s.max_n, c->physical, &c->max);
	if (rc < 0)
		return -1;
	return require(r, seen,
		       BIT(CMD_TYPE) | BIT(CMD_PATH) | BIT(CMD_CODEC) | BIT(CMD_NUM_VALUES) | BIT(CMD_COMPRESSED) |
			       BIT(CMD_DATA_PAGE_OFFSET),
		       "a column chunk's metadata lacks a required field");
}

static int read_column_chunk(struct stk_thrift_reader *r, struct stk_pq_chunk_meta *c)
{
	bool has_meta = false;
	int16_t id;
	uint8_t type;
	int rc;

	*c = (struct stk_pq_chunk_meta){ .dict_page_offset = -1, .null_count = -1 };
	FOR_EACH_FIELD(r, id, type, rc) {
		if (id == CC_META_DATA) {
			has_meta = true;
			rc = enter_struct(r, type) < 0 ? -1 : read_column_meta(r, c);
		} else if (id == 1 || id >= 8) {
			/* file_path, encryption: data stk cannot reach */
			return stk_thrift_fail(r, "a column chunk in another file or encrypted");
		} else {
			rc = stk_thrift_skip(r, type);
		}
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	if (rc == 0 && !has_meta)
		return stk_thrift_fail(r, "a column chunk without metadata");
	return rc;
}

static int read_row_group(struct stk_thrift_reader *r, struct stk_pq_group_meta *g)
{
	uint32_t n, seen = 0;
	size_t cap = 0;
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id > 0 && id < 32)
			seen |= BIT(id);
		if (id == RG_COLUMNS && !g->chunks) {
			if (struct_list(r, type, &n) < 0)
				return -1;
			for (uint32_t i = 0; i < n; i++) {
				if (stk_grow((void **)&g->chunks, &cap, g->n_chunks + 1, sizeof(*g->chunks)) < 0)
					return stk_thrift_fail(r, "out of memory");
				if (stk_thrift_enter(r) < 0 || read_column_chunk(r, &g->chunks[g->n_chunks++]) < 0)
					return -1;
			}
		} else if (id == RG_TOTAL_BYTE_SIZE) {
			rc = field_i64(r, type, &g->total_byte_size);
		} else if (id == RG_NUM_ROWS) {
			rc = field_i64(r, type, &g->num_rows);
		} else {
			rc = stk_thrift_skip(r, type);
		}
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	return rc < 0 ? -1 : require(r, seen, BIT(RG_COLUMNS) | BIT(RG_NUM_ROWS), "a row group lacks a required field");
}

static int read_timestamp(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	int16_t id, unit;
	uint8_t type, unit_type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id == TS_UTC && (type == STK_THRIFT_TRUE || type == STK_THRIFT_FALSE)) {
			e->utc = type == STK_THRIFT_TRUE;
		} else if (id == TS_UNIT) {
			int16_t last = 0;

			/* a union: the one field's id names the unit */
			if (enter_struct(r, type) < 0 || stk_thrift_next_field(r, &last, &unit, &unit_type) <= 0 ||
			    stk_thrift_skip(r, unit_type) < 0 || stk_thrift_next_field(r, &last, &id, &type) != 0)
				return stk_thrift_fail(r, "a malformed time unit");
			stk_thrift_leave(r);
			e->time_unit = unit;
		} else if (stk_thrift_skip(r, type) < 0) {
			return -1;
		}
	}
	stk_thrift_leave(r);
	return rc;
}

static int read_logical(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		e->logical = id;
		if (id == STK_PQ_LOGICAL_TIMESTAMP)
			rc = enter_struct(r, type) < 0 ? -1 : read_timestamp(r, e);
		else
			rc = stk_thrift_skip(r, type);
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	return rc;
}

static int read_schema_elem(struct stk_thrift_reader *r, struct stk_pq_schema_elem *e)
{
	bool named = false;
	int16_t id;
	uint8_t type;
	int rc;

	*e = (struct stk_pq_schema_elem){ .physical = -1, .repetition = -1, .converted = -1, .num_children = -1 };
	FOR_EACH_FIELD(r, id, type, rc) {
		switch (id) {
		case SE_TYPE: rc = field_i32(r, type, &e->physical); break;
		case SE_REPETITION: rc = field_i32(r, type, &e->repetition); break;
		case SE_NAME: rc = field_binary(r, type, &e->name, &e->name_len); named = true; break;
		case SE_NUM_CHILDREN: rc = field_i32(r, type, &e->num_children); break;
		case SE_CONVERTED: rc = field_i32(r, type, &e->converted); break;
		case SE_LOGICAL: rc = enter_struct(r, type) < 0 ? -1 : read_logical(r, e); break;
		default: rc = stk_thrift_skip(r, type); break;
		}
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	if (rc == 0 && !named)
		return stk_thrift_fail(r, "a schema element without a name");
	return rc;
}

static int read_kv(struct stk_thrift_reader *r, struct stk_pq_kv *kv)
{
	int16_t id;
	uint8_t type;
	int rc;

	*kv = (struct stk_pq_kv){ 0 };
	FOR_EACH_FIELD(r, id, type, rc) {
		if (id == KV_KEY)
			rc = field_binary(r, type, &kv->key, &kv->key_len);
		else if (id == KV_VALUE)
			rc = field_binary(r, type, &kv->value, &kv->value_len);
		else
			rc = stk_thrift_skip(r, type);
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	if (rc == 0 && !kv->key)
		return stk_thrift_fail(r, "a key/value pair without a key");
	return rc;
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
	uint32_t seen = 0;
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id > 0 && id < 32)
			seen |= BIT(id);
		switch (id) {
		case FMD_VERSION: rc = field_i32(r, type, &f->version); break;
		case FMD_SCHEMA: READ_LIST(r, type, f->schema, f->n_schema, read_schema_elem); break;
		case FMD_NUM_ROWS: rc = field_i64(r, type, &f->num_rows); break;
		case FMD_ROW_GROUPS: READ_LIST(r, type, f->groups, f->n_groups, read_row_group); break;
		case FMD_KV: READ_LIST(r, type, f->kv, f->n_kv, read_kv); break;
		default: rc = stk_thrift_skip(r, type); break;
		}
		if (rc < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	return require(r, seen, BIT(FMD_SCHEMA) | BIT(FMD_NUM_ROWS) | BIT(FMD_ROW_GROUPS),
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
	int16_t id;
	uint8_t type;
	int rc;

	FOR_EACH_FIELD(r, id, type, rc) {
		if (id == DPH_NUM_VALUES) /* DICT_NUM_VALUES too */
			rc = field_i32(r, type, &h->num_values);
		else if (id == DPH_ENCODING) /* DICT_ENCODING too */
			rc = field_i32(r, type, &h->encoding);
		else if (id == DPH_DEF_ENCODING && !dict)
			rc = field_i32(r, type, &h->def_encoding);
		else
			rc = stk_thrift_skip(r, type);
		if (rc < 0)
			return -1;
	}
	stk_thrift_leave(r);
	return rc;
}

int stk_pq_page_header_decode(const uint8_t *p, size_t n, struct stk_pq_page_header *h, size_t *used,
			      const char **err)
{
	struct stk_thrift_reader r = { .p = p, .end = p + n };
	uint32_t seen = 0;
	int16_t id;
	uint8_t type;
	int rc;

	*h = (struct stk_pq_page_header){ .type = -1, .num_values = -1, .encoding = -1, .def_encoding = -1 };
	FOR_EACH_FIELD(&r, id, type, rc) {
		if (id > 0 && id < 32)
			seen |= BIT(id);
		if (id == PH_TYPE)
			rc = field_i32(&r, type, &h->type);
		else if (id == PH_UNCOMPRESSED)
			rc = field_i32(&r, type, &h->uncompressed_size);
		else if (id == PH_COMPRESSED)
			rc = field_i32(&r, type, &h->compressed_size);
		else if (id == PH_DATA || id == PH_DICT)
			rc = enter_struct(&r, type) < 0 ? -1 : read_data_header(&r, h, id == PH_DICT);
		else
			rc = stk_thrift_skip(&r, type);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		require(&r, seen, BIT(PH_TYPE) | BIT(PH_UNCOMPRESSED) | BIT(PH_COMPRESSED), "a page header lacks a size");
	if (r.err) {
		*err = r.err;
		return -1;
	}
	*used = (size_t)(r.p - p);
	return 0;
}
