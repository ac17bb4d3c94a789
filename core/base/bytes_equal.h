/*
 * Whether two byte ranges are equal, eight bytes at a time. The static
 * build's C library compares byte by byte; hash tables whose every hit ends
 * in a comparison (48-byte keys, 100-byte frame lines) spent a few percent
 * of a recording capture there.
 */
#ifndef STK_BYTES_EQUAL_H
#define STK_BYTES_EQUAL_H

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

#endif
