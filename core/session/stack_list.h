/*
 * The stacks one capture collected, read from the applet's count map and
 * stack map and symbolized: the list every stack applet hands to output.
 */
#ifndef STK_STACK_LIST_H
#define STK_STACK_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stack/stack.h"

struct stk_symbolizer;
struct stk_kernel_unwind;

struct stk_stack_list {
	struct stk_stack *stacks;
	size_t n, cap;
};
/* A zeroed new entry, or NULL when out of memory. */
struct stk_stack *stk_stack_list_add(struct stk_stack_list *l);
void stk_stack_list_free(struct stk_stack_list *l);

/* One count-map key, as the applets' BPF sides all store it. */
struct stk_counted_key {
	uint32_t tgid, tid;
	const char *comm; /* up to 16 bytes, NUL-terminated or not */
	int32_t kernel_stack_id, user_stack_id; /* frame-pointer stacks in the stack map (< 0: none) */
	uint64_t kernel_chain, user_chain;      /* the kernel unwinder's chains (0: none) */
	uint64_t value;
};

/* Where a key's stacks are read from, and how many frames and which kinds are kept. */
struct stk_stack_source {
	int stack_map_fd;                        /* the STACK_TRACE map (-1: none) */
	const struct stk_kernel_unwind *chains;  /* the chain store (NULL: none) */
	struct stk_symbolizer *sym;
	uint32_t max_depth;
	bool user_only, kernel_only;
};
/*
 * A new entry for key: comm, value, and its kernel and user stacks read from
 * the stack map or the chain store and symbolized (only the kind -U/-K
 * leave; no user stack for the idle task). NULL when out of memory.
 */
struct stk_stack *stk_stack_list_add_key(struct stk_stack_list *l, const struct stk_counted_key *key,
					 const struct stk_stack_source *src);

#endif
