/* What speedscope and trace share: see output_timeline.h. */
#include "core/output/output_timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/utf8.h"

void stk_json_string(struct stk_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	stk_buf_putc(b, '"');
	for (size_t i = 0; i < len;) {
		size_t n = stk_utf8_seq_len(p + i, len - i);

		if (n == 0) {
			stk_buf_puts(b, "\\ufffd");
			n = 1;
		} else if (p[i] == '"' || p[i] == '\\') {
			stk_buf_putc(b, '\\');
			stk_buf_putc(b, (char)p[i]);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			stk_buf_printf(b, "\\u%04x", p[i]);
		} else {
			stk_buf_putn(b, s + i, n);
		}
		i += n;
	}
	stk_buf_putc(b, '"');
}

void stk_json_us(struct stk_buf *b, int64_t ns)
{
	if (ns < 0) {
		stk_buf_putc(b, '-');
		ns = -ns;
	}
	stk_buf_printf(b, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

int stk_tl_names_build(struct stk_tl_names *n, const struct stk_timeline *tl, const struct stk_output_opts *o)
{
	struct stk_path path = { 0 };
	struct stk_buf text = { 0 };
	size_t n_names = 0, cap = 0;

	*n = (struct stk_tl_names){ 0 };
	if (!(n->first = calloc(tl->n_stacks + 1, sizeof(*n->first))))
		return -1;
	for (size_t i = 0; i < tl->n_stacks; i++) {
		n->first[i] = n_names;
		if (stk_path_build(&path, &tl->stacks[i], o) ||
		    stk_grow((void **)&n->offset, &cap, n_names + path.n, sizeof(*n->offset)))
			goto fail;
		for (size_t e = 1; e < path.n; e++) { /* element 0 is the task */
			n->offset[n_names++] = text.len;
			stk_buf_putn(&text, stk_path_name(&path, e), strlen(stk_path_name(&path, e)) + 1);
		}
	}
	n->first[tl->n_stacks] = n_names;
	stk_path_free(&path);
	if (text.oom)
		goto fail;
	n->text = text.data ? (char *)text.data : strdup("");
	return n->text ? 0 : -1;
fail:
	stk_path_free(&path);
	stk_buf_free(&text);
	stk_tl_names_free(n);
	return -1;
}

void stk_tl_names_free(struct stk_tl_names *n)
{
	free(n->text);
	free(n->offset);
	free(n->first);
	*n = (struct stk_tl_names){ 0 };
}

/* An open interval or span: the event and when it is cut. */
struct open_item {
	const struct stk_timeline_event *ev;
	int64_t end;
};

/* Closes the open items that end by time t (all of them with t INT64_MAX). */
static int close_until(const struct stk_tl_walk *w, struct open_item *open, size_t *depth, int64_t t)
{
	while (*depth && open[*depth - 1].end <= t) {
		const struct open_item *it = &open[--*depth];

		if (w->close(w->ctx, it->ev, it->end))
			return -1;
	}
	return 0;
}

int stk_tl_walk_thread(const struct stk_timeline_thread *t, const struct stk_tl_walk *w)
{
	struct open_item *open = NULL;
	size_t depth = 0, cap = 0;
	int ret = -1;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct stk_timeline_event *ev = &t->events[i];
		int64_t end = ev->time + ev->duration;

		if (close_until(w, open, &depth, ev->time))
			goto out;
		if (ev->kind == STK_TIMELINE_SAMPLE) {
			if (w->sample && w->sample(w->ctx, ev))
				goto out;
			continue;
		}
		if (depth && end > open[depth - 1].end) /* cut at the end of what encloses it */
			end = open[depth - 1].end;
		if (end <= ev->time)
			continue;
		if (stk_grow((void **)&open, &cap, depth + 1, sizeof(*open)))
			goto out;
		open[depth++] = (struct open_item){ ev, end };
		if (w->open(w->ctx, ev, ev->time))
			goto out;
	}
	ret = close_until(w, open, &depth, INT64_MAX);
out:
	free(open);
	return ret;
}
