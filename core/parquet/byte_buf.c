#include "core/parquet/byte_buf.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

void stk_pq_buf_free(struct stk_pq_buf *b)
{
	free(b->data);
	*b = (struct stk_pq_buf){ 0 };
}

uint8_t *stk_pq_buf_grow(struct stk_pq_buf *b, size_t n)
{
	void *data = b->data;

	/* at least a byte: an empty buffer asked for no room still gets an address */
	if (b->oom || n > SIZE_MAX - b->len - 1 || stk_grow(&data, &b->cap, b->len + (n ? n : 1), 1) < 0) {
		b->oom = true;
		return NULL;
	}
	b->data = data;
	return b->data + b->len;
}

void stk_pq_buf_byte(struct stk_pq_buf *b, uint8_t v)
{
	stk_pq_buf_put(b, &v, 1);
}

void stk_pq_buf_le32(struct stk_pq_buf *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	stk_pq_buf_put(b, le, sizeof(le));
}

void stk_pq_buf_le64(struct stk_pq_buf *b, uint64_t v)
{
	stk_pq_buf_le32(b, (uint32_t)v);
	stk_pq_buf_le32(b, (uint32_t)(v >> 32));
}

void stk_pq_buf_uleb(struct stk_pq_buf *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	stk_pq_buf_put(b, out, n);
}

int stk_pq_get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t out = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (*p >= end)
			return -1;
		byte = *(*p)++;
		/* the tenth byte may only carry the top bit */
		if (shift == 63 && byte > 1)
			return -1;
		out |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = out;
			return 0;
		}
	}
	return -1;
}
