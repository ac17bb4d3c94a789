/* Growable strings and checked stream writes for the output formats. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/bytes.h"
#include "core/output/output_internal.h"

void stk_buf_free(struct stk_buf *b)
{
	free(b->data);
	*b = (struct stk_buf){ 0 };
}

void stk_buf_reset(struct stk_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static bool reserve(struct stk_buf *b, size_t extra)
{
	size_t cap;
	char *data;

	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	data = realloc(b->data, cap);
	if (!data) {
		b->oom = true;
		return false;
	}
	b->data = data;
	b->cap = cap;
	return true;
}

void stk_buf_putn(struct stk_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	stk_bytes_copy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
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
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *stk_buf_str(const struct stk_buf *b)
{
	return b->data && !b->oom ? b->data : "";
}

char *stk_buf_take(struct stk_buf *b)
{
	char *s;

	if (!reserve(b, 0)) {
		stk_buf_free(b);
		return NULL;
	}
	b->data[b->len] = '\0';
	s = b->data;
	*b = (struct stk_buf){ 0 };
	return s;
}

int stk_write_all(FILE *out, const void *data, size_t n)
{
	return n == 0 || fwrite(data, 1, n, out) == n ? 0 : -1;
}

int stk_finish_stream(FILE *out)
{
	int ret = fflush(out) == 0 ? 0 : -1;

	return ferror(out) ? -1 : ret;
}
