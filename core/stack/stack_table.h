/*
 * Unique raw stacks counted in user space: (task, kernel frames, user
 * frames, how each user frame was found, why the chain stopped) -> value.
 * Keyed by a 64-bit hash of the whole content and compared in full, so two
 * different stacks never share an entry.
 */
#ifndef STK_STACK_TABLE_H
#define STK_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_raw_stack {
	uint32_t tgid, tid;
	char comm[16];
	const uint64_t *kernel;
	size_t n_kernel;
	const uint64_t *user;
	size_t n_user;
	const uint8_t *user_how; /* NULL, or n_user entries of enum stk_unwind_how */
	const char *stop;        /* compared by address (interned by the unwinder) */
	bool kernel_lost;
	uint64_t value;
};

struct stk_stack_table;
struct stk_stack;

/* raw's task (tgid, tid, comm) and value into st, which frames are resolved into. */
void stk_raw_stack_task(const struct stk_raw_stack *raw, struct stk_stack *st);

struct stk_stack_table *stk_stack_table_new(void);
void stk_stack_table_free(struct stk_stack_table *t);
/* Adds s->value to s's entry, copying s when new. 0, or -1 when out of memory. */
int stk_stack_table_add(struct stk_stack_table *t, const struct stk_raw_stack *s);
/* The same, with the index of s's entry in *at. */
int stk_stack_table_add_at(struct stk_stack_table *t, const struct stk_raw_stack *s, size_t *at);
size_t stk_stack_table_size(const struct stk_stack_table *t);
/* The i-th entry (0 <= i < size), in insertion order; valid until the next add or free. */
const struct stk_raw_stack *stk_stack_table_at(const struct stk_stack_table *t, size_t i);
/*
 * Keeps the entries i whose where[i] is nonzero, in their order, and frees
 * the others; where[i] becomes a kept entry's new index + 1 (0: freed).
 * where has size entries. Never fails (the index only shrinks). Returns how many were freed.
 */
size_t stk_stack_table_retain(struct stk_stack_table *t, size_t *where);

#endif
