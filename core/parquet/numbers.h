/*
 * Numbers as Parquet and Thrift lay them out: zigzag for signed varints,
 * little-endian words and ULEB128 read back (the writers append them with
 * core/base/byte_buf.h).
 */
#ifndef STK_PQ_NUMBERS_H
#define STK_PQ_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t stk_pq_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t stk_pq_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint32_t stk_pq_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t stk_pq_get_le64(const uint8_t *p)
{
	return (uint64_t)stk_pq_get_le32(p) | (uint64_t)stk_pq_get_le32(p + 4) << 32;
}

/*
 * Reads a ULEB128 of at most 10 bytes from [*p, end) into *v and advances *p.
 * 0, or -1 when it runs past end or is longer than 64 bits allow.
 */
int stk_pq_get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
