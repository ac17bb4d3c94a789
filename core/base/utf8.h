/* UTF-8 checks: Parquet engines refuse a string column value, and JSON readers a file, that is not UTF-8. */
#ifndef STK_UTF8_H
#define STK_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of the valid UTF-8 sequence at p (len > 0 bytes left): 1 for ASCII; 0 when invalid. */
static inline size_t stk_utf8_seq_len(const unsigned char *p, size_t len)
{
	size_t n = p[0] < 0x80 ? 1 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 && p[0] < 0xf0 ? 3
		 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;

	if (n == 0 || n > len)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

static inline bool stk_utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = stk_utf8_seq_len((const unsigned char *)s + i, len - i)))
			return false;
	return true;
}

#endif
