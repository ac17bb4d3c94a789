/*
 * Every wanted thread's user stack at one moment, for threadstate -u: one
 * snapshot (core/snapshot/bpf/snapshot_source.h), each user stack unwound
 * and folded ("root;...;leaf"), kept by tid. A thread blocked since before
 * the capture started has its stack from here until it next switches out.
 */
#ifndef STK_SNAPSHOT_STACKS_H
#define STK_SNAPSHOT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot/bpf/snapshot_source.h"

struct stk_symbolizer;
struct stk_snap_stacks;

/* Takes the snapshot (sym must keep ELF files). NULL with err set when it cannot be taken. */
struct stk_snap_stacks *stk_snap_stacks_take(const struct stk_snap_request *req, struct stk_symbolizer *sym,
					     char *err, size_t len);
/* A malloc'd copy of tid's folded user stack, or NULL when none was taken. */
char *stk_snap_stacks_user(struct stk_snap_stacks *s, uint32_t tid);
/* Threads with a user stack, and the mechanism that took them. */
size_t stk_snap_stacks_count(const struct stk_snap_stacks *s);
const char *stk_snap_stacks_mech(const struct stk_snap_stacks *s);
void stk_snap_stacks_free(struct stk_snap_stacks *s);

#endif
