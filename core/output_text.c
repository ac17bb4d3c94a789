/* bcc profile's multi-line text: frames leaf first, task, value; most frequent last. */
#include <inttypes.h>
#include <stdlib.h>

#include "output_internal.h"

static void put_frames(struct stk_buf *b, const struct stk_frame *f, size_t n,
		       const struct stk_output_opts *o)
{
	for (size_t i = 0; i < n; i++) {
		size_t start;

		stk_buf_puts(b, "    ");
		start = b->len;
		stk_frame_name_text(b, &f[i], o);
		/* a newline inside a name would break the one-frame-per-line shape */
		for (size_t j = start; j < b->len && !b->oom; j++)
			if ((unsigned char)b->data[j] < 0x20 || b->data[j] == 0x7f)
				b->data[j] = '?';
		stk_buf_putc(b, '\n');
	}
}

static void render_stack(struct stk_buf *b, const struct stk_stack *s, const struct stk_output_opts *o)
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
	stk_buf_printf(b, "    %-16s ", "-");
	stk_put_comm(b, s);
	if (o->show_tid)
		stk_buf_printf(b, " (%" PRIu32 "/%" PRIu32 ")\n", s->pid, s->tid);
	else
		stk_buf_printf(b, " (%" PRIu32 ")\n", s->pid);
	stk_buf_printf(b, "        %" PRIu64 "\n\n", s->value);
}

int stk_output_text(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	const struct stk_stack **sorted = stk_sorted_stacks(r);
	struct stk_buf b = { 0 };
	int ret = 0;

	if (r->n_stacks && !sorted)
		return -1;
	for (size_t i = 0; i < r->n_stacks && ret == 0; i++) {
		stk_buf_reset(&b);
		render_stack(&b, sorted[i], o);
		if (b.oom || stk_write_all(out, b.data, b.len))
			ret = -1;
	}
	stk_buf_free(&b);
	free(sorted);
	return ret ? ret : stk_finish_stream(out);
}
