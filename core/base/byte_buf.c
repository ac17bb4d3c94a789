/* The byte buffer: see byte_buf.h. */
#include "core/base/byte_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

void stk_buf_free(struct stk_buf *b)
{
	free(b->data);
	*b = (struct stk_buf){ 0 };
}

uint8_t *stk_buf_grow(struct stk_buf *b, size_t n)
{
	void *data = b->data;

	/* at least a byte: an empty buffer asked for no room still gets an address */
	if (b->oom || n > SIZE_MAX - b->len - 1 || stk_grow(&data, &b->cap, b->len + (n ? n : 1), 1) < 0) {
		b->oom = true;
		return NULL;
	}
	b->data = data;
	return b->data + b->len;
}

void stk_buf_le32(struct stk_buf *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	stk_buf_put(b, le, sizeof(le));
}

void stk_buf_le64(struct stk_buf *b, uint64_t v)
{
	stk_buf_le32(b, (uint32_t)v);
	stk_buf_le32(b, (uint32_t)(v >> 32));
}

void stk_buf_uleb(struct stk_buf *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	stk_buf_put(b, out, n);
}

void stk_buf_dec(struct stk_buf *b, uint64_t v)
{
	char out[20];
	size_t at = sizeof(out);

	do /* a constant divisor: the compiler multiplies */
		out[--at] = (char)('0' + v % 10);
	while ((v /= 10));
	stk_buf_put(b, out + at, sizeof(out) - at);
}

void stk_buf_reset(struct stk_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void stk_buf_putn(struct stk_buf *b, const char *s, size_t n)
{
	uint8_t *at = n < SIZE_MAX ? stk_buf_reserve(b, n + 1) : NULL;

	if (!at) {
		b->oom = true;
		return;
	}
	stk_bytes_copy(at, s, n);
	at[n] = '\0';
	b->len += n;
}

void stk_buf_puts(struct stk_buf *b, const char *s)
{
	stk_buf_putn(b, s, strlen(s));
}

void stk_buf_putc(struct stk_buf *b, char c)
{
	stk_buf_putn(b, &c, 1);
}

void stk_buf_printf(struct stk_buf *b, const char *fmt, ...)
{
	va_list ap;
	uint8_t *at;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!(at = stk_buf_reserve(b, (size_t)n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)at, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *stk_buf_str(const struct stk_buf *b)
{
	return b->data && !b->oom ? (const char *)b->data : "";
}

char *stk_buf_take(struct stk_buf *b)
{
	uint8_t *at = stk_buf_reserve(b, 1);
	char *s;

	if (!at) {
		stk_buf_free(b);
		return NULL;
	}
	*at = '\0';
	s = (char *)b->data;
	*b = (struct stk_buf){ 0 };
	return s;
}
