/* Merging, ordering and writing "text value" lines (folded and pmp). */
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/output/output_internal.h"

static bool in_set(const char *set, char c)
{
	for (; *set; set++)
		if (*set == c)
			return true;
	return false;
}

void stk_put_clean(struct stk_buf *b, const char *s, const char *bad, char repl)
{
	while (*s) {
		size_t run = 0;

		/* the bytes that stay as they are (nearly all), put at once */
		while (s[run] && (unsigned char)s[run] >= 0x20 && s[run] != 0x7f && !in_set(bad, s[run]))
			run++;
		stk_buf_putn(b, s, run);
		s += run;
		if (!*s)
			break;
		/* a newline would split the line */
		stk_buf_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : repl);
		s++;
	}
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(((const struct stk_line *)a)->text, ((const struct stk_line *)b)->text);
}

static int cmp_value_asc(const void *a, const void *b)
{
	const struct stk_line *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int cmp_value_desc(const void *a, const void *b)
{
	const struct stk_line *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->text, y->text);
}

size_t stk_lines_merge(struct stk_line *v, size_t n)
{
	size_t out = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_text);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(v[out].text, v[i].text) == 0) {
			v[out].value += v[i].value;
			v[out].base += v[i].base;
			free(v[i].text);
		} else {
			v[++out] = v[i];
		}
	}
	return out + 1;
}

void stk_lines_sort_by_value(struct stk_line *v, size_t n, bool descending)
{
	if (n)
		qsort(v, n, sizeof(*v), descending ? cmp_value_desc : cmp_value_asc);
}

int stk_lines_write(FILE *out, struct stk_line *v, size_t n, bool value_first, bool with_base)
{
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		int w = value_first ? fprintf(out, "%" PRIu64 " %s\n", v[i].value, v[i].text)
			: with_base ? fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", v[i].text, v[i].base, v[i].value)
				    : fprintf(out, "%s %" PRIu64 "\n", v[i].text, v[i].value);
		if (w < 0)
			ret = -1;
	}
	stk_lines_free(v, n);
	return ret ? ret : stk_finish_stream(out);
}

void stk_lines_free(struct stk_line *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}
