#include "core/parquet/delta_binary.h"

#include "core/parquet/bitpack.h"
#include "core/parquet/numbers.h"

/* One block: values first .. first + count - 1, each minus the one before it. */
static void encode_block(struct stk_buf *out, const int64_t *v, size_t first, size_t count,
			 unsigned block_size, unsigned miniblocks)
{
	uint64_t rel[STK_PQ_DELTA_MAX_BLOCK];
	unsigned per_mini = block_size / miniblocks;
	int64_t min = INT64_MAX;
	size_t widths_at;

	/* differences in the unsigned domain: they wrap, as the format wants */
	for (size_t k = 0; k < count; k++) {
		int64_t d = (int64_t)((uint64_t)v[first + k] - (uint64_t)v[first + k - 1]);
		rel[k] = (uint64_t)d;
		if (d < min)
			min = d;
	}
	stk_buf_uleb(out, stk_pq_zigzag(min));
	widths_at = out->len;
	/* unused miniblocks of the last block keep width 0 and take no bytes */
	for (unsigned m = 0; m < miniblocks; m++)
		stk_buf_byte(out, 0);
	for (unsigned m = 0; m < miniblocks && (size_t)m * per_mini < count; m++) {
		size_t from = (size_t)m * per_mini, bytes;
		uint64_t all = 0;
		unsigned width;
		uint8_t *at;

		for (size_t k = from; k < from + per_mini; k++) {
			rel[k] = k < count ? rel[k] - (uint64_t)min : 0;
			all |= rel[k];
		}
		width = stk_pq_bit_width(all);
		bytes = stk_pq_packed_size(per_mini, width);
		at = stk_buf_reserve(out, bytes);
		if (!at)
			return;
		stk_pq_pack(at, rel + from, per_mini, width);
		out->len += bytes;
		out->data[widths_at + m] = (uint8_t)width;
	}
}

void stk_pq_delta_encode(struct stk_buf *out, const int64_t *v, size_t n, unsigned block_size,
			 unsigned miniblocks)
{
	stk_buf_uleb(out, block_size);
	stk_buf_uleb(out, miniblocks);
	stk_buf_uleb(out, n);
	stk_buf_uleb(out, stk_pq_zigzag(n ? v[0] : 0));
	for (size_t i = 1; i < n; i += block_size)
		encode_block(out, v, i, n - i < block_size ? n - i : block_size, block_size, miniblocks);
}

int stk_pq_delta_decode(int64_t *out, size_t n, const uint8_t **p, const uint8_t *end)
{
	uint64_t block_size, miniblocks, total, zz, rel[STK_PQ_DELTA_MAX_BLOCK];
	uint64_t prev;
	size_t per_mini, done = 0;

	if (stk_pq_get_uleb(p, end, &block_size) < 0 || stk_pq_get_uleb(p, end, &miniblocks) < 0 ||
	    stk_pq_get_uleb(p, end, &total) < 0 || stk_pq_get_uleb(p, end, &zz) < 0)
		return -1;
	if (block_size == 0 || block_size > STK_PQ_DELTA_MAX_BLOCK || miniblocks == 0 ||
	    block_size % miniblocks || (block_size / miniblocks) % 8 || total != n)
		return -1;
	per_mini = (size_t)(block_size / miniblocks);
	if (n == 0)
		return 0;
	prev = (uint64_t)stk_pq_unzigzag(zz);
	out[done++] = (int64_t)prev;
	while (done < n) {
		const uint8_t *widths;
		uint64_t min;

		if (stk_pq_get_uleb(p, end, &zz) < 0 || (uint64_t)(end - *p) < miniblocks)
			return -1;
		min = (uint64_t)stk_pq_unzigzag(zz);
		widths = *p;
		*p += miniblocks;
		for (size_t m = 0; m < miniblocks && done < n; m++) {
			size_t bytes = stk_pq_packed_size(per_mini, widths[m]);

			if (widths[m] > 64 || (size_t)(end - *p) < bytes)
				return -1;
			stk_pq_unpack(rel, *p, per_mini, widths[m]);
			*p += bytes;
			for (size_t k = 0; k < per_mini && done < n; k++) {
				prev += min + rel[k];
				out[done++] = (int64_t)prev;
			}
		}
	}
	return 0;
}
