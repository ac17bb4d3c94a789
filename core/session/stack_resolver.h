/*
 * The one way a stack reference (struct stk_stack_ref, bpf/stack_types.h)
 * becomes a stack, for an applet's totals and its events alike: from the
 * kernel unwinder's chains, a stack copy unwound in user space, or
 * frame-pointer stack ids, symbolized, then shown as the applet shows its
 * stacks (struct stk_stack_rules: data the applet declares, no code of its).
 * The session keeps one resolver (core/session/session.h) and points it at
 * whatever the run has: the stack map, the chain store, the copies.
 */
#ifndef STK_STACK_RESOLVER_H
#define STK_STACK_RESOLVER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/stack_types.h"
#include "core/session/stack_list.h"

struct stk_symbolizer;
struct stk_kernel_unwind;
struct stk_dwarf_samples;
struct stk_name_list;

/* What one ref.type is: how its totals are reported, how its stacks are shown. */
struct stk_weight_kind {
	int report_type;   /* which of the report's value types (stk_stack.type); -1: not reported */
	uint64_t divisor;  /* totals print weights divided by this (nanoseconds as microseconds: 1000) */
	bool trim_tracing; /* kernel frames start at the traced code, not in the tracing code that took them */
	bool res_marks;    /* stk resources' frames for res_kind: what moved, who moved it */
	uint16_t res_kind; /* enum stk_res_kind */
};

/* How an applet shows its stacks. */
struct stk_stack_rules {
	const struct stk_name_list *trim_to; /* trimmed kernel frames start at one of these probed functions (NULL: none) */
	const char *still_leaf;              /* the leaf frame of a STK_REF_STILL stack ("[still off-CPU]") */
	/* ref.type -> what it is (types past n_kinds are not reported); NULL: every type is the
	 * report's first, divided by 1, shown untrimmed */
	const struct stk_weight_kind *kinds;
	size_t n_kinds;
};

struct stk_stack_resolver {
	int stack_map_fd;                       /* stk_stacks (-1: none) */
	const struct stk_kernel_unwind *chains; /* the cfi rung's chain store (NULL: none) */
	struct stk_dwarf_samples *copies;       /* stack copies unwound in user space (NULL: none) */
	struct stk_symbolizer *sym;
	uint32_t max_depth;
	bool user_only, kernel_only;
	struct stk_stack_rules rules;
};

/*
 * A new entry of l for ref with value: its task, its kernel and user stacks
 * (only the kinds -U/-K leave; no user stack for the idle task), symbolized
 * and shown by the rules. NULL when out of memory.
 */
struct stk_stack *stk_stack_resolve(const struct stk_stack_resolver *r, struct stk_stack_list *l,
				    const struct stk_stack_ref *ref, uint64_t value);
/*
 * A total: weight summed under ref, added to l as its report shows it
 * (divided by its kind's divisor; nothing for a kind not reported or a
 * value that shows as 0). 0, or -1 when out of memory.
 */
int stk_stack_resolve_total(const struct stk_stack_resolver *r, struct stk_stack_list *l,
			    const struct stk_stack_ref *ref, uint64_t weight);

#endif
