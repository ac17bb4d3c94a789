/*
 * A growable byte buffer for building pages and the footer. A failed
 * allocation sets oom and turns every later append into a no-op, so a
 * builder checks once at the end instead of after every byte.
 */
#ifndef STK_PQ_BYTE_BUF_H
#define STK_PQ_BYTE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base/bytes.h"

struct stk_pq_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom;
};

void stk_pq_buf_free(struct stk_pq_buf *b);
/* Growing for stk_pq_buf_reserve, out of line: most appends have room. */
uint8_t *stk_pq_buf_grow(struct stk_pq_buf *b, size_t n);

/* Room for n more bytes at data + len (len unchanged), or NULL (oom set). */
static inline uint8_t *stk_pq_buf_reserve(struct stk_pq_buf *b, size_t n)
{
	return !b->oom && b->cap - b->len >= n && b->data ? b->data + b->len : stk_pq_buf_grow(b, n);
}

static inline void stk_pq_buf_put(struct stk_pq_buf *b, const void *p, size_t n)
{
	uint8_t *at = n ? stk_pq_buf_reserve(b, n) : NULL;

	if (!at)
		return;
	stk_bytes_copy(at, p, n);
	b->len += n;
}

void stk_pq_buf_byte(struct stk_pq_buf *b, uint8_t v);
void stk_pq_buf_le32(struct stk_pq_buf *b, uint32_t v);
void stk_pq_buf_le64(struct stk_pq_buf *b, uint64_t v);
/* ULEB128, as Thrift's compact protocol and the Parquet encodings use it. */
void stk_pq_buf_uleb(struct stk_pq_buf *b, uint64_t v);

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
