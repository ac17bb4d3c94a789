/* A minimal protobuf writer (varints and length-delimited fields), enough
 * for profile.proto without a protobuf library. */
#include <string.h>

#include "core/output/output_internal.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void key(struct stk_buf *p, uint32_t field, unsigned wire)
{
	stk_buf_uleb(p, (uint64_t)field << 3 | wire);
}

void stk_pb_uint(struct stk_buf *p, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	key(p, field, WIRE_VARINT);
	stk_buf_uleb(p, v);
}

void stk_pb_int(struct stk_buf *p, uint32_t field, int64_t v)
{
	/* int64 (not sint64): negative values are their 64-bit two's complement */
	stk_pb_uint(p, field, (uint64_t)v);
}

void stk_pb_bytes(struct stk_buf *p, uint32_t field, const void *data, size_t n)
{
	key(p, field, WIRE_LEN);
	stk_buf_uleb(p, n);
	stk_buf_put(p, data, n);
}

void stk_pb_string(struct stk_buf *p, uint32_t field, const char *s)
{
	stk_pb_bytes(p, field, s, strlen(s));
}

void stk_pb_sub(struct stk_buf *p, uint32_t field, const struct stk_buf *sub)
{
	if (sub->oom)
		p->oom = true;
	stk_pb_bytes(p, field, sub->data, sub->len);
}
