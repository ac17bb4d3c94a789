#include "core/session/stack_list.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/session/stack_resolve.h"

struct stk_stack *stk_stack_list_add(struct stk_stack_list *l)
{
	if (stk_grow((void **)&l->stacks, &l->cap, l->n + 1, sizeof(*l->stacks)))
		return NULL;
	memset(&l->stacks[l->n], 0, sizeof(l->stacks[0]));
	return &l->stacks[l->n++];
}

struct stk_stack *stk_stack_list_add_key(struct stk_stack_list *l, const struct stk_counted_key *key,
					 int stack_map_fd, struct stk_symbolizer *sym, uint32_t max_depth,
					 bool user_only, bool kernel_only)
{
	struct stk_stack *st = stk_stack_list_add(l);

	if (!st)
		return NULL;
	st->pid = key->tgid;
	st->tid = key->tid;
	memcpy(st->comm, key->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = key->value;
	if (!user_only) {
		st->kernel = stk_resolve_stack(stack_map_fd, key->kernel_stack_id, max_depth, true, 0, sym,
					       &st->n_kernel);
		st->kernel_missing = stk_stack_id_missing(key->kernel_stack_id);
	}
	if (!kernel_only && key->tgid) {
		st->user = stk_resolve_stack(stack_map_fd, key->user_stack_id, max_depth, false, (pid_t)key->tgid,
					     sym, &st->n_user);
		st->user_missing = stk_stack_id_missing(key->user_stack_id);
	}
	return st;
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
