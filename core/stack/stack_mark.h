/*
 * Frames that are no code's but say something about a stack: offcputime's
 * "[still off-CPU]", resources' "[block write]" or "[kernel thread:
 * writeback]". Added to the kernel frames (reallocated: the stack list
 * owns the array); the name is the caller's, usually static.
 */
#ifndef STK_STACK_MARK_H
#define STK_STACK_MARK_H

#include "core/stack/stack.h"

/* Prepends a frame named symbol to st's kernel frames (its new leaf). 0, or -1 when out of memory. */
int stk_stack_mark_leaf(struct stk_stack *st, const char *symbol);
/* Appends a frame named symbol after st's kernel frames (its new root). 0, or -1 when out of memory. */
int stk_stack_mark_root(struct stk_stack *st, const char *symbol);

#endif
