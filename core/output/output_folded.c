/* Folded stacks for flamegraph.pl: "comm;user root..leaf;kernel root..leaf value". A report of
 * several value types (stk resources) starts each line with the type: "rss;comm;... value"; a
 * difference gives the base's value before it ("... base value", which flamegraph.pl draws as a
 * differential graph). */
#include <stdlib.h>
#include <string.h>

#include "core/output/output_formats.h"
#include "core/output/output_internal.h"

/* The path's frames from element first on, ';' between them (names cleaned as folded lines have them). */
static void put_frames(struct stk_buf *b, const struct stk_path *path, size_t first)
{
	for (size_t e = first; e < path->n; e++) {
		if (e > first)
			stk_buf_putc(b, ';');
		/* ';' separates frames: keep the line parseable */
		stk_put_clean(b, stk_path_name(path, e), ";", ':');
	}
}

struct stk_folded_scratch {
	struct stk_path path;
	struct stk_buf text;
};

struct stk_folded_scratch *stk_folded_scratch_new(void)
{
	return calloc(1, sizeof(struct stk_folded_scratch));
}

const char *stk_folded_stack_in(struct stk_folded_scratch *sc, const struct stk_stack *s,
				const struct stk_output_opts *o, size_t *len)
{
	stk_buf_reset(&sc->text);
	sc->text.oom = sc->path.names.oom = false; /* a failure before is not this stack's */
	if (stk_path_build(&sc->path, s, o))
		return NULL;
	put_frames(&sc->text, &sc->path, 1); /* element 0 is the task */
	stk_buf_putn(&sc->text, "", 0);       /* an empty stack is "", not NULL */
	if (sc->text.oom)
		return NULL;
	*len = sc->text.len;
	return (const char *)sc->text.data;
}

void stk_folded_scratch_free(struct stk_folded_scratch *sc)
{
	if (!sc)
		return;
	stk_path_free(&sc->path);
	stk_buf_free(&sc->text);
	free(sc);
}

char *stk_folded_stack(const struct stk_stack *s, const struct stk_output_opts *o)
{
	struct stk_folded_scratch sc = { 0 };
	size_t len;
	const char *text = stk_folded_stack_in(&sc, s, o, &len);
	char *copy = text ? strndup(text, len) : NULL;

	stk_path_free(&sc.path);
	stk_buf_free(&sc.text);
	return copy;
}

int stk_output_folded(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	struct stk_line *lines = calloc(r->n_stacks ? r->n_stacks : 1, sizeof(*lines));
	struct stk_path path = { 0 };
	struct stk_buf b = { 0 };
	size_t n = 0;

	if (!lines)
		return -1;
	for (size_t i = 0; i < r->n_stacks; i++) {
		if (stk_path_build(&path, &r->stacks[i], o))
			goto fail;
		if (stk_report_n_types(r) > 1) {
			stk_put_clean(&b, stk_report_type(r, r->stacks[i].type).type, ";", ':');
			stk_buf_putc(&b, ';');
		}
		put_frames(&b, &path, 0);
		lines[n].value = r->stacks[i].value;
		lines[n].base = r->stacks[i].base;
		lines[n].text = stk_buf_take(&b);
		if (!lines[n++].text)
			goto fail;
	}
	stk_path_free(&path);
	n = stk_lines_merge(lines, n);
	stk_lines_sort_by_value(lines, n, false);
	return stk_lines_write(out, lines, n, false, r->diff);
fail:
	stk_path_free(&path);
	stk_buf_free(&b);
	stk_lines_free(lines, n);
	return -1;
}
