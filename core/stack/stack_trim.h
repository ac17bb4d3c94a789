/*
 * Kernel stacks taken inside a tracing program start with the tracing
 * machinery (bpf_prog_*, bpf_trace_run*, __bpf_trace_*, __traceiter_*,
 * perf_trace_*, ...). Dropping that prefix makes them start where the
 * traced code was, e.g. at __schedule for sched_switch.
 */
#ifndef STK_STACK_TRIM_H
#define STK_STACK_TRIM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/name_list.h"
#include "core/stack/stack.h"

/* True for a frame name that belongs to the tracing machinery. */
bool stk_is_tracing_frame(const char *symbol);
/*
 * Number of leading frames (leaf first) to drop: every tracing frame, and
 * unresolved frames among them, up to the first real frame. 0 when the
 * stack has no real frame at all (better a raw stack than none). Also
 * the first of two leading frames at the same address (a duplicate some
 * kernels' tracepoints report).
 */
size_t stk_tracing_prefix(const struct stk_frame *frames, size_t n);
/* Drops st's leading tracing frames (stk_tracing_prefix): its kernel frames start at the traced code. */
void stk_trim_tracing(struct stk_stack *st);

/*
 * Drops st's leading tracing frames, and when targets is given (kernel
 * functions probed) every frame above the first of its few leaf frames
 * named in targets: a probed function's own frame is the first (fentry
 * stacks begin in a trampoline that kallsyms may not name).
 */
void stk_trim_to_target(struct stk_stack *st, const struct stk_name_list *targets);

#endif
