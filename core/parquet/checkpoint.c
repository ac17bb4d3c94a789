/* The checkpoint record after a row group: see checkpoint.h. */
#include "core/parquet/checkpoint.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

uint32_t stk_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		uInt step = n > UINT_MAX ? UINT_MAX : (uInt)n;

		crc = (uint32_t)crc32(crc, b, step);
		b += step;
		n -= step;
	}
	return crc;
}

void stk_pq_ckpt_trailer(struct stk_buf *out, size_t meta_len, int64_t prev_end, uint32_t crc)
{
	size_t meta_at = out->len - meta_len;

	stk_buf_le32(out, (uint32_t)meta_len);
	stk_buf_le64(out, (uint64_t)prev_end);
	if (!out->oom)
		crc = stk_crc32(crc, out->data + meta_at, out->len - meta_at);
	stk_buf_le32(out, crc);
	stk_buf_put(out, STK_PQ_CKPT_MAGIC, 4);
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int stk_pq_ckpt_trailer_read(const uint8_t *p, struct stk_pq_ckpt_trailer *t)
{
	if (memcmp(p + 16, STK_PQ_CKPT_MAGIC, 4) != 0)
		return -1;
	t->meta_len = (uint32_t)le(p, 4);
	t->prev_end = (int64_t)le(p + 4, 8);
	t->crc = (uint32_t)le(p + 12, 4);
	return 0;
}
