/*
 * Bit-packing as Parquet's RLE/bit-packed hybrid and DELTA_BINARY_PACKED use
 * it: values of `width` bits (0..64), packed from the least significant bit
 * of each byte up. Internal to core/parquet/.
 */
#ifndef STK_PQ_BITPACK_H
#define STK_PQ_BITPACK_H

#include <stddef.h>
#include <stdint.h>

/* Bytes that n values of width bits take, rounded up to a whole byte. */
static inline size_t stk_pq_packed_size(size_t n, unsigned width)
{
	return (n * width + 7) / 8;
}

/* Bits needed for v (0 for 0). */
static inline unsigned stk_pq_bit_width(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/*
 * Packs n values into out, which has room for stk_pq_packed_size(n, width)
 * bytes. Bits of a value above width must be zero.
 */
void stk_pq_pack(uint8_t *out, const uint64_t *v, size_t n, unsigned width);
/* Unpacks n values from in, which holds stk_pq_packed_size(n, width) bytes. */
void stk_pq_unpack(uint64_t *out, const uint8_t *in, size_t n, unsigned width);

#endif
