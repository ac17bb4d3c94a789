/*
 * The frames stk resources adds to a stack to say what the numbers are:
 * which system call moved the bytes (its kernel frames at the call's exit
 * say nothing: "[sys_write]" stands in for them), which direction a block
 * request went ("[block write]" at the leaf), and who did it when it was
 * not the process's own code: "[kernel thread: writeback]", "[kernel
 * thread]" or "[io_uring worker]" at the root of the kernel frames. Frame
 * arrays are the stack list's (reallocated); the names are static.
 */
#ifndef STK_RES_MARKS_H
#define STK_RES_MARKS_H

#include <stdint.h>

#include "core/stack/stack.h"

/* "[sys_NAME]" for the system calls resources counts, "[system call]" for others. */
const char *stk_res_syscall_frame(const char *name);
/* Prepends a frame named symbol to st's kernel frames (its new leaf). 0, or -1 when out of memory. */
int stk_res_mark_leaf(struct stk_stack *st, const char *symbol);
/* The label for who (bpf/resources_types.h STK_RES_WHO_*), by st's kernel frames; NULL for a user thread. */
const char *stk_res_who_label(const struct stk_stack *st, uint32_t who);
/* Appends a frame named symbol after st's kernel frames (its new root). 0, or -1 when out of memory. */
int stk_res_mark_root(struct stk_stack *st, const char *symbol);

#endif
