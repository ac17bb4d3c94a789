/* pt-pmp style "value frame,frame,..." leaf first, C++ parameter lists removed,
 * most frequent first. A report of several value types (stk resources) ends each
 * line with the type, the outermost element: "4096 leaf,...,main,rss". */
#include <stdlib.h>
#include <string.h>

#include "core/output/output_formats.h"
#include "core/output/output_internal.h"

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Length of s without a trailing " [clone .xxx]", cv/ref qualifier or spaces; len if none. */
static size_t strip_suffix_once(const char *s, size_t len)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };

	while (len && s[len - 1] == ' ')
		len--;
	if (len && s[len - 1] == ']') {
		for (size_t i = len; i-- > 0;) {
			if (s[i] == '[') {
				if (len - i > 7 && memcmp(s + i, "[clone ", 7) == 0 && i > 0 && s[i - 1] == ' ')
					return i - 1;
				break;
			}
		}
	}
	for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
		if (ends_with(s, len, quals[i]))
			return len - strlen(quals[i]);
	return len;
}

void stk_pmp_strip(struct stk_buf *b, const char *symbol)
{
	size_t len = strlen(symbol), prev;

	do {
		prev = len;
		len = strip_suffix_once(symbol, len);
	} while (len != prev);
	if (len && symbol[len - 1] == ')') {
		int depth = 0;

		for (size_t i = len; i-- > 0;) {
			if (symbol[i] == ')')
				depth++;
			else if (symbol[i] == '(' && --depth == 0) {
				/* "(anonymous namespace)" alone is a name, not a parameter list */
				if (i > 0)
					len = i;
				break;
			}
		}
	}
	while (len && symbol[len - 1] == ' ')
		len--;
	stk_buf_putn(b, symbol, len);
}

static void put_frames(struct stk_buf *b, struct stk_buf *tmp, const struct stk_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < f[i].n_inlined; k++) { /* inlined functions, innermost first */
			if (b->len)
				stk_buf_putc(b, ',');
			stk_buf_reset(tmp);
			stk_pmp_strip(tmp, f[i].inlined[k].symbol);
			stk_put_clean(b, stk_buf_str(tmp), "", '?');
		}
		if (b->len)
			stk_buf_putc(b, ',');
		stk_buf_reset(tmp);
		if (f[i].symbol)
			stk_pmp_strip(tmp, f[i].symbol);
		else
			stk_buf_puts(tmp, STK_UNKNOWN_SYMBOL);
		stk_put_clean(b, stk_buf_str(tmp), "", '?');
	}
}

int stk_output_pmp(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	struct stk_line *lines = calloc(r->n_stacks ? r->n_stacks : 1, sizeof(*lines));
	struct stk_buf b = { 0 }, tmp = { 0 };
	size_t n = 0;

	(void)o;
	if (!lines)
		return -1;
	for (size_t i = 0; i < r->n_stacks; i++) {
		const struct stk_stack *s = &r->stacks[i];

		if (s->kernel_missing)
			stk_buf_puts(&b, STK_MISSED_KERNEL);
		else
			put_frames(&b, &tmp, s->kernel, s->n_kernel);
		if (s->user_missing)
			stk_buf_puts(&b, b.len ? "," STK_MISSED_USER : STK_MISSED_USER);
		else
			put_frames(&b, &tmp, s->user, s->n_user);
		if (stk_report_n_types(r) > 1) {
			if (b.len)
				stk_buf_putc(&b, ',');
			stk_put_clean(&b, stk_report_type(r, s->type).type, ",", ';');
		}
		lines[n].value = s->value;
		lines[n].text = stk_buf_take(&b);
		if (tmp.oom || !lines[n++].text)
			goto fail;
	}
	stk_buf_free(&tmp);
	n = stk_lines_merge(lines, n);
	stk_lines_sort_by_value(lines, n, true);
	return stk_lines_write(out, lines, n, true, false);
fail:
	stk_buf_free(&b);
	stk_buf_free(&tmp);
	stk_lines_free(lines, n);
	return -1;
}
