#include "core/parquet/bitpack.h"

/* Appends the low `width` bits of v to the bit stream (acc holds *bits pending bits). */
static inline uint8_t *push_bits(uint8_t *out, uint64_t *acc, unsigned *bits, uint64_t v, unsigned width)
{
	unsigned used = *bits;

	*acc |= v << used;
	if (used + width < 64) {
		*bits = used + width;
		return out;
	}
	for (int i = 0; i < 8; i++)
		*out++ = (uint8_t)(*acc >> (8 * i));
	/* what of v did not fit; a shift by 64 is undefined, and nothing is left then */
	*acc = used ? v >> (64 - used) : 0;
	*bits = used + width - 64;
	return out;
}

static inline void flush_bits(uint8_t *out, uint64_t acc, unsigned bits)
{
	for (unsigned i = 0; i < bits; i += 8)
		*out++ = (uint8_t)(acc >> i);
}

void stk_pq_pack(uint8_t *out, const uint64_t *v, size_t n, unsigned width)
{
	uint64_t acc = 0;
	unsigned bits = 0;

	if (!width)
		return;
	for (size_t i = 0; i < n; i++)
		out = push_bits(out, &acc, &bits, v[i], width);
	flush_bits(out, acc, bits);
}

void stk_pq_unpack(uint64_t *out, const uint8_t *in, size_t n, unsigned width)
{
	uint64_t mask = width == 64 ? UINT64_MAX : (1ULL << width) - 1;
	size_t bit = 0;

	for (size_t i = 0; i < n; i++, bit += width) {
		size_t byte = bit / 8, end = (bit + width + 7) / 8;
		unsigned shift = bit % 8;
		uint64_t v = 0;

		/* up to 9 bytes hold one value; gather the first 8, then the ninth's top bits */
		for (size_t b = byte; b < end && b < byte + 8; b++)
			v |= (uint64_t)in[b] << (8 * (b - byte));
		v >>= shift;
		if (end > byte + 8)
			v |= (uint64_t)in[byte + 8] << (64 - shift);
		out[i] = width ? v & mask : 0;
	}
}
