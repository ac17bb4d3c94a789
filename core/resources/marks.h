/*
 * The frames stk resources adds to a stack to say what the numbers are:
 * which system call moved the bytes (its kernel frames at the call's exit
 * say nothing: "[sys_write]" stands in for them), which direction a block
 * request went ("[block write]" at the leaf), and who did it when it was
 * not the process's own code: "[kernel thread: writeback]", "[kernel
 * thread]" or "[io_uring worker]" at the root of the kernel frames
 * (core/stack/stack_mark.h adds them). The names are static.
 */
#ifndef STK_RES_MARKS_H
#define STK_RES_MARKS_H

#include <stdint.h>

#include "core/stack/stack.h"

/* "[sys_NAME]" for the system calls resources counts, "[system call]" for others. */
const char *stk_res_syscall_frame(const char *name);
/* The label for who (bpf/resources_types.h STK_RES_WHO_*), by st's kernel frames; NULL for a user thread. */
const char *stk_res_who_label(const struct stk_stack *st, uint32_t who);

#endif
