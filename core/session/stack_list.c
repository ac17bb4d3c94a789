#include "core/session/stack_list.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_stack *stk_stack_list_add(struct stk_stack_list *l)
{
	if (stk_grow((void **)&l->stacks, &l->cap, l->n + 1, sizeof(*l->stacks)))
		return NULL;
	memset(&l->stacks[l->n], 0, sizeof(l->stacks[0]));
	return &l->stacks[l->n++];
}

void stk_stack_list_free(struct stk_stack_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((void *)l->stacks[i].kernel);
		free((void *)l->stacks[i].user);
	}
	free(l->stacks);
	l->stacks = NULL;
	l->n = l->cap = 0;
}
