/*
 * The stacks one capture collected, symbolized: the list every stack applet
 * hands to output (core/session/stack_resolver.h fills it).
 */
#ifndef STK_STACK_LIST_H
#define STK_STACK_LIST_H

#include <stddef.h>

#include "core/stack/stack.h"

struct stk_stack_list {
	struct stk_stack *stacks; /* their frame arrays are the list's */
	size_t n, cap;
};
/* A zeroed new entry, or NULL when out of memory. */
struct stk_stack *stk_stack_list_add(struct stk_stack_list *l);
void stk_stack_list_free(struct stk_stack_list *l);

#endif
