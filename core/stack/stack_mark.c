/* Frames that say something about a stack: see stack_mark.h. */
#include "core/stack/stack_mark.h"

#include <stdlib.h>
#include <string.h>

/* st's kernel frames with one more at position at (0: leaf, n: root). */
static int insert_frame(struct stk_stack *st, size_t at, const char *symbol)
{
	struct stk_frame *f = calloc(st->n_kernel + 1, sizeof(*f));

	if (!f)
		return -1;
	if (at)
		memcpy(f, st->kernel, at * sizeof(*f));
	if (st->n_kernel > at)
		memcpy(f + at + 1, st->kernel + at, (st->n_kernel - at) * sizeof(*f));
	f[at] = (struct stk_frame){ .symbol = symbol, .kernel = true };
	free((void *)st->kernel);
	st->kernel = f;
	st->n_kernel++;
	st->kernel_missing = false; /* the mark says more than "[Missed Kernel Stack]" */
	return 0;
}

int stk_stack_mark_leaf(struct stk_stack *st, const char *symbol)
{
	return insert_frame(st, 0, symbol);
}

int stk_stack_mark_root(struct stk_stack *st, const char *symbol)
{
	return insert_frame(st, st->n_kernel, symbol);
}
