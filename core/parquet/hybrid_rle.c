#include "core/parquet/hybrid_rle.h"

#include "core/parquet/bitpack.h"
#include "core/parquet/numbers.h"

/* How many values from v[i] on equal v[i], looking no further than limit of them. */
static size_t run_length(const uint32_t *v, size_t i, size_t n, size_t limit)
{
	size_t j = i + 1;

	while (j < n && j - i < limit && v[j] == v[i])
		j++;
	return j - i;
}

static void put_rle_run(struct stk_buf *out, uint32_t value, size_t count, unsigned width)
{
	stk_buf_uleb(out, (uint64_t)count << 1);
	for (unsigned b = 0; b < (width + 7) / 8; b++)
		stk_buf_byte(out, (uint8_t)(value >> (8 * b)));
}

static void put_packed_run(struct stk_buf *out, const uint32_t *v, size_t count, size_t n_groups, unsigned width)
{
	uint8_t *at;

	stk_buf_uleb(out, (uint64_t)n_groups << 1 | 1);
	at = stk_buf_reserve(out, n_groups * width);
	if (!at)
		return;
	for (size_t g = 0; g < n_groups; g++) {
		uint64_t group[8] = { 0 };

		for (size_t k = 0; k < 8 && g * 8 + k < count; k++)
			group[k] = v[g * 8 + k];
		stk_pq_pack(at + g * width, group, 8, width);
	}
	out->len += n_groups * width;
}

/* Runs are capped so a count always fits the int32 readers keep it in. */
#define MAX_RUN ((size_t)1 << 30)

void stk_pq_rle_encode(struct stk_buf *out, const uint32_t *v, size_t n, unsigned width)
{
	size_t i = 0;

	while (i < n) {
		size_t run = run_length(v, i, n, MAX_RUN), j;

		if (run >= 8) {
			put_rle_run(out, v[i], run, width);
			i += run;
			continue;
		}
		/* groups of 8 until a run of 8 or more starts right after one */
		j = i;
		do
			j += 8;
		while (j < n && j - i < MAX_RUN && run_length(v, j, n, 8) < 8);
		if (j > n)
			j = n;
		put_packed_run(out, v + i, j - i, (j - i + 7) / 8, width);
		i = j;
	}
}

int stk_pq_rle_decode(uint32_t *out, size_t n, const uint8_t *in, size_t len, unsigned width)
{
	/* no bytes may come as a NULL pointer: no arithmetic on it */
	const uint8_t *p = in, *end = len ? in + len : in;
	size_t done = 0, value_bytes = (width + 7) / 8;
	uint64_t limit = width >= 32 ? UINT32_MAX : (1ULL << width) - 1;

	if (width > 32)
		return -1;
	while (done < n) {
		uint64_t header, count;

		if (stk_pq_get_uleb(&p, end, &header) < 0)
			return -1;
		if (!(header & 1)) {
			uint64_t value = 0;

			count = header >> 1;
			if (count == 0 || (size_t)(end - p) < value_bytes)
				return -1;
			for (size_t b = 0; b < value_bytes; b++)
				value |= (uint64_t)p[b] << (8 * b);
			p += value_bytes;
			if (value > limit)
				return -1;
			for (uint64_t k = 0; k < count && done < n; k++)
				out[done++] = (uint32_t)value;
			continue;
		}
		count = (header >> 1) * 8;
		if (count == 0 || (width && header >> 1 > (uint64_t)(end - p) / width))
			return -1;
		for (uint64_t k = 0; k < count && done < n; k += 8) {
			uint64_t group[8];

			stk_pq_unpack(group, p, 8, width);
			p += width;
			for (size_t g = 0; g < 8 && done < n; g++)
				out[done++] = (uint32_t)group[g];
		}
	}
	return 0;
}
