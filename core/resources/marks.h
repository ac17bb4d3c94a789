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

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "bpf/stack_types.h"
#include "core/stack/stack.h"

/* The label for who (bpf/stack_types.h STK_WHO_*), by st's kernel frames; NULL for a user thread. */
const char *stk_res_who_label(const struct stk_stack *st, uint32_t who);

/*
 * st as stk resources shows the stack ref counts for kind (enum stk_res_kind): the leaf that says what moved
 * (block direction, system call), the root that says who (kernel thread, io_uring worker). 0, or -1 when out
 * of memory.
 */
int stk_res_mark(struct stk_stack *st, const struct stk_stack_ref *ref, unsigned kind, bool user_only);

#endif
