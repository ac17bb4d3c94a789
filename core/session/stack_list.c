#include "core/session/stack_list.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "bpf/unwind_types.h"
#include "core/session/kernel_unwind.h"
#include "core/session/stack_resolve.h"
#include "core/sym/symbolize.h"
#include "core/unwind/cfi_table.h"

struct stk_stack *stk_stack_list_add(struct stk_stack_list *l)
{
	if (stk_grow((void **)&l->stacks, &l->cap, l->n + 1, sizeof(*l->stacks)))
		return NULL;
	memset(&l->stacks[l->n], 0, sizeof(l->stacks[0]));
	return &l->stacks[l->n++];
}

/* A chain from the store, symbolized; *missing when the id is not there. */
static struct stk_frame *chain_frames(const struct stk_stack_source *src, uint64_t id, bool kernel, pid_t pid,
				      size_t *n, bool *missing, const char **stop_text)
{
	uint64_t pcs[STK_CHAIN_MAX];
	unsigned stop = STK_STOP_NONE;
	bool is_kernel;
	size_t count = 0;

	*n = 0;
	if (stk_kernel_unwind_chain(src->chains, id, pcs, src->max_depth < STK_CHAIN_MAX ? src->max_depth : STK_CHAIN_MAX,
				    &count, &stop, &is_kernel) || is_kernel != kernel) {
		*missing = true;
		return NULL;
	}
	if (stop_text)
		*stop_text = stk_walk_stop_text(stop);
	return stk_symbolize_ips(src->sym, pcs, count, kernel, pid, n);
}

struct stk_stack *stk_stack_list_add_key(struct stk_stack_list *l, const struct stk_counted_key *key,
					 const struct stk_stack_source *src)
{
	struct stk_stack *st = stk_stack_list_add(l);

	if (!st)
		return NULL;
	st->pid = key->tgid;
	st->tid = key->tid;
	memcpy(st->comm, key->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = key->value;
	if (!src->user_only) {
		if (key->kernel_chain && src->chains)
			st->kernel = chain_frames(src, key->kernel_chain, true, 0, &st->n_kernel, &st->kernel_missing, NULL);
		else
			st->kernel = stk_resolve_stack(src->stack_map_fd, key->kernel_stack_id, src->max_depth, true, 0,
						       src->sym, &st->n_kernel);
		st->kernel_missing |= stk_stack_id_missing(key->kernel_stack_id);
	}
	if (!src->kernel_only && key->tgid) {
		if (key->user_chain && src->chains)
			st->user = chain_frames(src, key->user_chain, false, (pid_t)key->tgid, &st->n_user,
						&st->user_missing, &st->unwind_stop);
		else
			st->user = stk_resolve_stack(src->stack_map_fd, key->user_stack_id, src->max_depth, false,
						     (pid_t)key->tgid, src->sym, &st->n_user);
		st->user_missing |= stk_stack_id_missing(key->user_stack_id);
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
