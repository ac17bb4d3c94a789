/*
 * The growable byte buffer every builder of bytes uses: text (the output
 * formats), protobuf (pprof), Parquet pages and footers, the event log's
 * frames. A failed allocation sets oom and turns every later append into a
 * no-op, so a builder checks once at the end instead of after every byte.
 * The text appends (stk_buf_putn, _puts, _putc, _printf) leave a NUL after
 * the bytes (not counted in len), so data then reads as a C string; the
 * byte appends do not spend that store.
 */
#ifndef STK_BYTE_BUF_H
#define STK_BYTE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/bytes.h"

struct stk_buf {
	uint8_t *data; /* owned; NULL until the first append */
	size_t len, cap;
	bool oom;
};

void stk_buf_free(struct stk_buf *b);
/* Growing for stk_buf_reserve, out of line: most appends have room. */
uint8_t *stk_buf_grow(struct stk_buf *b, size_t n);

/* Room for n more bytes at data + len (len unchanged; the caller adds what it wrote), or NULL (oom set). */
static inline uint8_t *stk_buf_reserve(struct stk_buf *b, size_t n)
{
	return !b->oom && b->cap - b->len >= n && b->data ? b->data + b->len : stk_buf_grow(b, n);
}

static inline void stk_buf_put(struct stk_buf *b, const void *p, size_t n)
{
	uint8_t *at = n ? stk_buf_reserve(b, n) : NULL;

	if (!at)
		return;
	stk_bytes_copy(at, p, n);
	b->len += n;
}

static inline void stk_buf_byte(struct stk_buf *b, uint8_t v)
{
	uint8_t *at = stk_buf_reserve(b, 1);

	if (at) {
		*at = v;
		b->len++;
	}
}

void stk_buf_le32(struct stk_buf *b, uint32_t v);
void stk_buf_le64(struct stk_buf *b, uint64_t v);
/* ULEB128: protobuf's varint, Thrift's compact protocol and the Parquet encodings. */
void stk_buf_uleb(struct stk_buf *b, uint64_t v);
/* v in decimal (no printf: a stack's text has hundreds of numbers). */
void stk_buf_dec(struct stk_buf *b, uint64_t v);

/* Text. Empties b, keeping its memory (data stays a C string). */
void stk_buf_reset(struct stk_buf *b);
void stk_buf_putn(struct stk_buf *b, const char *s, size_t n);
void stk_buf_puts(struct stk_buf *b, const char *s);
void stk_buf_putc(struct stk_buf *b, char c);
__attribute__((format(printf, 2, 3))) void stk_buf_printf(struct stk_buf *b, const char *fmt, ...);
/* The text so far: always a valid string, "" before the first text append or after a failed one. */
const char *stk_buf_str(const struct stk_buf *b);
/* Hands the text over to the caller (NULL on oom); the buffer is empty afterwards. */
char *stk_buf_take(struct stk_buf *b);

#endif
