/*
 * pmp's task_iter_copy mechanism (bpf/pmp.bpf.c): one pass of the
 * sleepable task iterator per snapshot, its records read into a struct
 * stk_snap (kernel frames as addresses, all user registers, the stack copy).
 */
#ifndef STK_SNAP_ITER_H
#define STK_SNAP_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot/snapshot.h"

struct stk_snap_iter_request {
	uint32_t skip_tgid;   /* stk itself */
	uint32_t stack_bytes; /* copied per thread, at most STK_PMP_STACK_MAX */
	const char *btf_custom_path;
	bool kernel_btf; /* the running kernel's own BTF exists (the iterator's attach target) */
};

/* Loads and attaches the iterator into rung. 0, or -1 with why set. */
int stk_snap_iter_open(const struct stk_snap_iter_request *req, struct stk_snap_rung *rung, char *why, size_t len);

#endif
