/* A stack reference to a stack: see stack_resolver.h. */
#include "core/session/stack_resolver.h"

#include <string.h>

#include "bpf/unwind_types.h"
#include "core/resources/marks.h"
#include "core/session/dwarf_samples.h"
#include "core/session/kernel_unwind.h"
#include "core/session/stack_resolve.h"
#include "core/stack/stack_mark.h"
#include "core/stack/stack_trim.h"
#include "core/sym/symbolize.h"
#include "core/unwind/cfi_table.h"

/* A chain from the store, symbolized; *missing when the id is not there. */
static struct stk_frame *chain_frames(const struct stk_stack_resolver *r, uint64_t id, bool kernel, pid_t pid,
				      size_t *n, bool *missing, const char **stop_text)
{
	uint64_t pcs[STK_CHAIN_MAX];
	unsigned stop = STK_STOP_NONE;
	bool is_kernel;
	size_t count = 0;

	*n = 0;
	if (stk_kernel_unwind_chain(r->chains, id, pcs, r->max_depth < STK_CHAIN_MAX ? r->max_depth : STK_CHAIN_MAX,
				    &count, &stop, &is_kernel) || is_kernel != kernel) {
		*missing = true;
		return NULL;
	}
	if (stop_text)
		*stop_text = stk_walk_stop_text(stop);
	return stk_symbolize_ips(r->sym, pcs, count, kernel, pid, n);
}

/* ref's frames from the chain store or the stack map into st. */
static void frames_by_id(const struct stk_stack_resolver *r, struct stk_stack *st, const struct stk_stack_ref *ref)
{
	if (!r->user_only) {
		if (ref->kernel_chain && r->chains)
			st->kernel = chain_frames(r, ref->kernel_chain, true, 0, &st->n_kernel, &st->kernel_missing, NULL);
		else
			st->kernel = stk_resolve_stack(r->stack_map_fd, ref->kernel_stack_id, r->max_depth, true, 0, r->sym,
						       &st->n_kernel);
		st->kernel_missing |= stk_stack_id_missing(ref->kernel_stack_id);
	}
	if (!r->kernel_only && ref->tgid) {
		if (ref->user_chain && r->chains)
			st->user = chain_frames(r, ref->user_chain, false, (pid_t)ref->tgid, &st->n_user, &st->user_missing,
						&st->unwind_stop);
		else
			st->user = stk_resolve_stack(r->stack_map_fd, ref->user_stack_id, r->max_depth, false,
						     (pid_t)ref->tgid, r->sym, &st->n_user);
		st->user_missing |= stk_stack_id_missing(ref->user_stack_id);
	}
}

static struct stk_weight_kind kind_of(const struct stk_stack_rules *rules, uint16_t type)
{
	if (!rules->kinds)
		return (struct stk_weight_kind){ .report_type = 0, .divisor = 1 };
	if (type >= rules->n_kinds)
		return (struct stk_weight_kind){ .report_type = -1, .divisor = 1 };
	return rules->kinds[type];
}

struct stk_stack *stk_stack_resolve(const struct stk_stack_resolver *r, struct stk_stack_list *l,
				    const struct stk_stack_ref *ref, uint64_t value)
{
	const struct stk_stack_rules *rules = &r->rules;
	struct stk_stack *st;

	/* a copy, except where it had no room in the buffer and frame pointers took the stack */
	if (ref->copy && r->copies) {
		st = stk_dwarf_samples_add(r->copies, l, ref->copy, ref->tgid, ref->tid, ref->comm, value);
	} else if ((st = stk_stack_list_add(l))) {
		st->pid = ref->tgid;
		st->tid = ref->tid;
		memcpy(st->comm, ref->comm, sizeof(st->comm));
		st->comm[sizeof(st->comm) - 1] = '\0';
		st->value = value;
		frames_by_id(r, st, ref);
	}
	if (!st)
		return NULL;
	struct stk_weight_kind k = kind_of(rules, ref->type);
	st->type = k.report_type > 0 ? (uint32_t)k.report_type : 0;
	if (k.trim_tracing)
		stk_trim_to_target(st, rules->trim_to);
	if ((ref->flags & STK_REF_STILL) && rules->still_leaf && stk_stack_mark_leaf(st, rules->still_leaf))
		return NULL;
	if (k.res_marks && stk_res_mark(st, ref, k.res_kind, r->user_only))
		return NULL;
	return st;
}

int stk_stack_resolve_total(const struct stk_stack_resolver *r, struct stk_stack_list *l,
			    const struct stk_stack_ref *ref, uint64_t weight)
{
	struct stk_weight_kind k = kind_of(&r->rules, ref->type);
	uint64_t value = weight / (k.divisor ? k.divisor : 1);

	if (k.report_type < 0 || value == 0)
		return 0;
	return stk_stack_resolve(r, l, ref, value) ? 0 : -1;
}
