/* bcc profile's multi-line text: frames leaf first, task, value; most frequent last. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/output/output_formats.h"
#include "core/output/output_internal.h"

/* A newline inside a name would break the one-frame-per-line shape. */
static void clean_from(struct stk_buf *b, size_t start)
{
	for (size_t j = start; j < b->len && !b->oom; j++)
		if (b->data[j] < 0x20 || b->data[j] == 0x7f)
			b->data[j] = '?';
}

static void put_source_line(struct stk_buf *b, const char *file, uint32_t line)
{
	if (file)
		stk_buf_printf(b, " at %s:%u", file, (unsigned)line);
}

static void put_frames(struct stk_buf *b, const struct stk_frame *f, size_t n,
		       const struct stk_output_opts *o)
{
	for (size_t i = 0; i < n; i++) {
		size_t start;

		/* functions inlined at this address first, innermost (the leaf side) first */
		for (size_t k = 0; k < f[i].n_inlined; k++) {
			stk_buf_puts(b, "    ");
			start = b->len;
			stk_buf_puts(b, f[i].inlined[k].symbol);
			stk_buf_puts(b, " (inlined)");
			if (o->lines)
				put_source_line(b, f[i].inlined[k].file, f[i].inlined[k].line);
			clean_from(b, start);
			stk_buf_putc(b, '\n');
		}
		stk_buf_puts(b, "    ");
		start = b->len;
		stk_frame_name_text(b, &f[i], o);
		if (o->lines)
			put_source_line(b, f[i].file, f[i].line);
		clean_from(b, start);
		stk_buf_putc(b, '\n');
	}
}

/* Everything of a stack's block except its value line. */
static void render_block(struct stk_buf *b, const struct stk_stack *s, const struct stk_output_opts *o)
{
	if (s->kernel_missing)
		stk_buf_puts(b, "    " STK_MISSED_KERNEL "\n");
	else
		put_frames(b, s->kernel, s->n_kernel, o);
	if (o->delimiter && s->n_kernel && s->n_user && !s->kernel_missing && !s->user_missing)
		stk_buf_puts(b, "    --\n");
	if (s->user_missing)
		stk_buf_puts(b, "    " STK_MISSED_USER "\n");
	else
		put_frames(b, s->user, s->n_user, o);
	if (o->verbose && s->unwind_stop)
		stk_buf_printf(b, "    (user stack ends: %s)\n", s->unwind_stop);
	if (o->no_task)
		return;
	stk_buf_printf(b, "    %-16s ", "-");
	stk_put_comm(b, s);
	if (o->show_tid)
		stk_buf_printf(b, " (%" PRIu32 "/%" PRIu32 ")\n", s->pid, s->tid);
	else
		stk_buf_printf(b, " (%" PRIu32 ")\n", s->pid);
}

struct text_block {
	char *text;
	uint64_t value;
	uint32_t type;
};

static int cmp_block_text(const void *a, const void *b)
{
	const struct text_block *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* By type, then ascending by value, most frequent last as bcc prints; ties by text. */
static int cmp_block_value(const void *a, const void *b)
{
	const struct text_block *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Sorts by type and text and merges equal texts of a type, summing values. The new count. */
static size_t merge_blocks(struct text_block *blocks, size_t n)
{
	size_t merged = 0;

	if (!n)
		return 0;
	qsort(blocks, n, sizeof(*blocks), cmp_block_text);
	for (size_t i = 1; i < n; i++) {
		if (blocks[i].type == blocks[merged].type && strcmp(blocks[i].text, blocks[merged].text) == 0) {
			blocks[merged].value += blocks[i].value;
			free(blocks[i].text);
		} else {
			blocks[++merged] = blocks[i];
		}
	}
	return merged + 1;
}

/* A report of several value types (stk resources) heads each type's blocks with "TYPE (UNIT):". */
static int write_blocks(FILE *out, const struct stk_report *r, const struct text_block *blocks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r->types && (i == 0 || blocks[i].type != blocks[i - 1].type)) {
			struct stk_value_type vt = stk_report_type(r, blocks[i].type);

			if (fprintf(out, "%s (%s):\n", vt.type, vt.unit) < 0)
				return -1;
		}
		if (stk_write_all(out, blocks[i].text, strlen(blocks[i].text)) ||
		    fprintf(out, "        %" PRIu64 "\n\n", blocks[i].value) < 0)
			return -1;
	}
	return 0;
}

/*
 * Stacks that differ only in addresses (the same functions, other offsets)
 * print identically: they are merged so each block appears once with the
 * sum, as in folded output.
 */
int stk_output_text(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	struct text_block *blocks = r->n_stacks ? calloc(r->n_stacks, sizeof(*blocks)) : NULL;
	struct stk_buf b = { 0 };
	size_t n = 0;
	int ret = 0;

	if (r->n_stacks && !blocks)
		return -1;
	for (size_t i = 0; i < r->n_stacks && ret == 0; i++) {
		stk_buf_reset(&b);
		render_block(&b, &r->stacks[i], o);
		blocks[n].value = r->stacks[i].value;
		blocks[n].type = r->stacks[i].type;
		if (b.oom || !(blocks[n].text = stk_buf_take(&b)))
			ret = -1;
		else
			n++;
	}
	if (ret == 0) {
		n = merge_blocks(blocks, n);
		if (n)
			qsort(blocks, n, sizeof(*blocks), cmp_block_value);
		ret = write_blocks(out, r, blocks, n);
	}
	for (size_t i = 0; i < n; i++)
		free(blocks[i].text);
	free(blocks);
	stk_buf_free(&b);
	return ret ? ret : stk_finish_stream(out);
}
