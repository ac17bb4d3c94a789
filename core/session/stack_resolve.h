/* From a BPF stack-trace map entry to symbolized frames. */
#ifndef STK_STACK_RESOLVE_H
#define STK_STACK_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/stack/stack.h"

struct stk_symbolizer;

/* A stack id below zero means "not captured", except these two cases. */
#define STK_STACK_ID_NOT_REQUESTED (-1)
/* bpf_get_stackid's -EFAULT: no stack of that kind (a kernel thread's user stack). */
#define STK_STACK_ID_NONE (-14)

/* True when id < 0 names a real loss (collision, full map), not an absence. */
bool stk_stack_id_missing(int32_t id);

/*
 * Reads stack_id from the STACK_TRACE map stack_map_fd (depth entries of
 * u64) and symbolizes it; user stacks in pid's address space. Returns a
 * newly allocated frame array (caller frees) or NULL with *n = 0 when the
 * id is gone or empty.
 */
struct stk_frame *stk_resolve_stack(int stack_map_fd, int32_t stack_id, uint32_t depth, bool kernel,
				    pid_t pid, struct stk_symbolizer *sym, size_t *n);

#endif
