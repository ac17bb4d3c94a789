/*
 * Comparing and copying short byte ranges. The static build's C library
 * compares byte by byte and copies with `rep movs` whatever the length (tens
 * of cycles to start); the event log's hash tables end every hit in a
 * comparison (48-byte keys, 100-byte frame lines) and its encoders copy
 * names a few bytes at a time, which made both a few percent each of a
 * recording capture.
 */
#ifndef STK_BYTES_H
#define STK_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool stk_bytes_equal(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	uint64_t u, v;

	for (; n >= sizeof(u); x += sizeof(u), y += sizeof(u), n -= sizeof(u)) {
		memcpy(&u, x, sizeof(u));
		memcpy(&v, y, sizeof(v));
		if (u != v)
			return false;
	}
	for (; n; x++, y++, n--)
		if (*x != *y)
			return false;
	return true;
}

/* memcpy of fewer than 64 bytes, eight at a time (constant-size copies compile to moves). */
static inline void stk_bytes_copy_short(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint64_t w8;
	uint32_t w4;
	uint16_t w2;

	for (n &= 63; n >= 8; d += 8, s += 8, n -= 8) {
		memcpy(&w8, s, 8);
		memcpy(d, &w8, 8);
	}
	if (n & 4) {
		memcpy(&w4, s, 4);
		memcpy(d, &w4, 4);
		d += 4, s += 4;
	}
	if (n & 2) {
		memcpy(&w2, s, 2);
		memcpy(d, &w2, 2);
		d += 2, s += 2;
	}
	if (n & 1)
		*d = *s;
}

/* memcpy, the short ones without the library's start-up cost. */
static inline void stk_bytes_copy(void *dst, const void *src, size_t n)
{
	if (n >= 64)
		memcpy(dst, src, n);
	else
		stk_bytes_copy_short(dst, src, n);
}

#endif
