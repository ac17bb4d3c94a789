#include "core/parquet/thrift_compact.h"
#include "core/parquet/numbers.h"

/* --- writer --- */

void stk_thrift_writer_init(struct stk_thrift_writer *w, struct stk_buf *out)
{
	*w = (struct stk_thrift_writer){ .out = out };
}

static void field_header(struct stk_thrift_writer *w, int16_t id, uint8_t type)
{
	int16_t delta = (int16_t)(id - w->last_id[w->depth]);

	if (delta > 0 && delta <= 15) {
		stk_buf_byte(w->out, (uint8_t)(delta << 4 | type));
	} else {
		stk_buf_byte(w->out, type);
		stk_buf_uleb(w->out, stk_pq_zigzag(id));
	}
	w->last_id[w->depth] = id;
}

void stk_thrift_field_i32(struct stk_thrift_writer *w, int16_t id, int32_t v)
{
	field_header(w, id, STK_THRIFT_I32);
	stk_buf_uleb(w->out, stk_pq_zigzag(v));
}

void stk_thrift_field_i64(struct stk_thrift_writer *w, int16_t id, int64_t v)
{
	field_header(w, id, STK_THRIFT_I64);
	stk_buf_uleb(w->out, stk_pq_zigzag(v));
}

void stk_thrift_field_bool(struct stk_thrift_writer *w, int16_t id, bool v)
{
	/* a bool field's value is its type code */
	field_header(w, id, v ? STK_THRIFT_TRUE : STK_THRIFT_FALSE);
}

void stk_thrift_field_binary(struct stk_thrift_writer *w, int16_t id, const void *p, size_t n)
{
	field_header(w, id, STK_THRIFT_BINARY);
	stk_thrift_elem_binary(w, p, n);
}

void stk_thrift_elem_struct(struct stk_thrift_writer *w)
{
	if (w->depth + 1 >= STK_THRIFT_MAX_DEPTH) {
		w->out->oom = true;
		return;
	}
	w->last_id[++w->depth] = 0;
}

void stk_thrift_field_struct(struct stk_thrift_writer *w, int16_t id)
{
	field_header(w, id, STK_THRIFT_STRUCT);
	stk_thrift_elem_struct(w);
}

void stk_thrift_field_list(struct stk_thrift_writer *w, int16_t id, enum stk_thrift_type elem_type, size_t n)
{
	field_header(w, id, STK_THRIFT_LIST);
	if (n < 15) {
		stk_buf_byte(w->out, (uint8_t)(n << 4 | elem_type));
	} else {
		stk_buf_byte(w->out, (uint8_t)(0xf0 | elem_type));
		stk_buf_uleb(w->out, n);
	}
}

void stk_thrift_elem_i32(struct stk_thrift_writer *w, int32_t v)
{
	stk_buf_uleb(w->out, stk_pq_zigzag(v));
}

void stk_thrift_elem_binary(struct stk_thrift_writer *w, const void *p, size_t n)
{
	stk_buf_uleb(w->out, n);
	stk_buf_put(w->out, p, n);
}

void stk_thrift_struct_end(struct stk_thrift_writer *w)
{
	stk_buf_byte(w->out, STK_THRIFT_STOP);
	if (w->depth > 0)
		w->depth--;
}

/* --- reader --- */

int stk_thrift_fail(struct stk_thrift_reader *r, const char *err)
{
	if (!r->err)
		r->err = err;
	r->p = r->end;
	return -1;
}

static int read_uleb(struct stk_thrift_reader *r, uint64_t *v)
{
	if (r->err)
		return -1;
	if (stk_pq_get_uleb(&r->p, r->end, v) < 0)
		return stk_thrift_fail(r, "truncated or overlong varint");
	return 0;
}

int stk_thrift_next_field(struct stk_thrift_reader *r, int16_t *last_id, int16_t *id, uint8_t *type)
{
	uint8_t byte;

	if (r->err)
		return -1;
	if (r->p >= r->end)
		return stk_thrift_fail(r, "truncated struct");
	byte = *r->p++;
	*type = byte & 0x0f;
	if (*type == STK_THRIFT_STOP)
		return byte == 0 ? 0 : stk_thrift_fail(r, "bad field header");
	if (*type > STK_THRIFT_STRUCT)
		return stk_thrift_fail(r, "unknown field type");
	if (byte >> 4) {
		*id = (int16_t)(*last_id + (byte >> 4));
	} else {
		uint64_t z;
		int64_t v;

		if (read_uleb(r, &z) < 0)
			return -1;
		v = stk_pq_unzigzag(z);
		if (v < INT16_MIN || v > INT16_MAX)
			return stk_thrift_fail(r, "field id out of range");
		*id = (int16_t)v;
	}
	*last_id = *id;
	return 1;
}

int stk_thrift_enter(struct stk_thrift_reader *r)
{
	if (r->err)
		return -1;
	if (++r->depth > STK_THRIFT_MAX_DEPTH)
		return stk_thrift_fail(r, "structs nested too deep");
	return 0;
}

void stk_thrift_leave(struct stk_thrift_reader *r)
{
	r->depth--;
}

int stk_thrift_read_i64(struct stk_thrift_reader *r, int64_t *v)
{
	uint64_t z;

	if (read_uleb(r, &z) < 0)
		return -1;
	*v = stk_pq_unzigzag(z);
	return 0;
}

int stk_thrift_read_i32(struct stk_thrift_reader *r, int32_t *v)
{
	int64_t w;

	if (stk_thrift_read_i64(r, &w) < 0)
		return -1;
	if (w < INT32_MIN || w > INT32_MAX)
		return stk_thrift_fail(r, "i32 out of range");
	*v = (int32_t)w;
	return 0;
}

int stk_thrift_read_binary(struct stk_thrift_reader *r, const uint8_t **p, size_t *n)
{
	uint64_t len;

	if (read_uleb(r, &len) < 0)
		return -1;
	if (len > (uint64_t)(r->end - r->p))
		return stk_thrift_fail(r, "binary runs past the end");
	*p = r->p;
	*n = (size_t)len;
	r->p += len;
	return 0;
}

int stk_thrift_read_list(struct stk_thrift_reader *r, uint8_t *elem_type, uint32_t *n)
{
	uint8_t byte;
	uint64_t size;

	if (r->err)
		return -1;
	if (r->p >= r->end)
		return stk_thrift_fail(r, "truncated list");
	byte = *r->p++;
	*elem_type = byte & 0x0f;
	size = byte >> 4;
	if (size == 15 && read_uleb(r, &size) < 0)
		return -1;
	if (*elem_type == STK_THRIFT_STOP || *elem_type > STK_THRIFT_STRUCT)
		return stk_thrift_fail(r, "unknown list element type");
	/* every element takes at least one byte */
	if (size > (uint64_t)(r->end - r->p))
		return stk_thrift_fail(r, "list longer than its bytes");
	*n = (uint32_t)size;
	return 0;
}

static int skip_struct(struct stk_thrift_reader *r)
{
	int16_t last = 0, id;
	uint8_t type;
	int rc;

	if (stk_thrift_enter(r) < 0)
		return -1;
	while ((rc = stk_thrift_next_field(r, &last, &id, &type)) > 0)
		if (stk_thrift_skip(r, type) < 0)
			return -1;
	stk_thrift_leave(r);
	return rc;
}

static int skip_list(struct stk_thrift_reader *r, uint8_t type)
{
	uint8_t elem, key_val;
	uint32_t n;
	uint64_t n_map;

	if (type != STK_THRIFT_MAP) {
		if (stk_thrift_read_list(r, &elem, &n) < 0 || stk_thrift_enter(r) < 0)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			/* a bool element is a byte of its own */
			if (stk_thrift_skip(r, elem == STK_THRIFT_TRUE || elem == STK_THRIFT_FALSE ? STK_THRIFT_BYTE : elem) < 0)
				return -1;
		stk_thrift_leave(r);
		return 0;
	}
	if (read_uleb(r, &n_map) < 0)
		return -1;
	if (n_map == 0)
		return 0;
	if (r->p >= r->end || n_map > (uint64_t)(r->end - r->p))
		return stk_thrift_fail(r, "map longer than its bytes");
	key_val = *r->p++;
	if (stk_thrift_enter(r) < 0)
		return -1;
	for (uint64_t i = 0; i < n_map; i++)
		if (stk_thrift_skip(r, key_val >> 4) < 0 || stk_thrift_skip(r, key_val & 0x0f) < 0)
			return -1;
	stk_thrift_leave(r);
	return 0;
}

int stk_thrift_skip(struct stk_thrift_reader *r, uint8_t type)
{
	const uint8_t *p;
	size_t n;
	int64_t v;

	if (r->err)
		return -1;
	switch (type) {
	case STK_THRIFT_TRUE:
	case STK_THRIFT_FALSE:
		return 0;
	case STK_THRIFT_BYTE:
		if (r->p >= r->end)
			return stk_thrift_fail(r, "truncated byte");
		r->p++;
		return 0;
	case STK_THRIFT_I16:
	case STK_THRIFT_I32:
	case STK_THRIFT_I64:
		return stk_thrift_read_i64(r, &v);
	case STK_THRIFT_DOUBLE:
		if (r->end - r->p < 8)
			return stk_thrift_fail(r, "truncated double");
		r->p += 8;
		return 0;
	case STK_THRIFT_BINARY:
		return stk_thrift_read_binary(r, &p, &n);
	case STK_THRIFT_LIST:
	case STK_THRIFT_SET:
	case STK_THRIFT_MAP:
		return skip_list(r, type);
	case STK_THRIFT_STRUCT:
		return skip_struct(r);
	default:
		return stk_thrift_fail(r, "unknown type");
	}
}
