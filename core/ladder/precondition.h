/*
 * Why a mechanism cannot work on this kernel, found without loading
 * anything: the checks `stk info` (core/bpf/features.c) makes before its
 * probe programs and the attach code makes before each rung, written once.
 */
#ifndef STK_PRECONDITION_H
#define STK_PRECONDITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/ladder/feature.h"

struct stk_rung;

struct stk_precondition_env {
	bool kernel_btf;           /* the running kernel's own BTF (sysfs or a vmlinux) exists */
	const char *tracefs_error; /* tracefs could not be made reachable: why; NULL when it is */
	const char *root;          /* "" for the real system; tests point it at a fixture tree */
	/* for stk_rung_precondition: */
	bool any_btf;              /* some BTF for CO-RE (the kernel's, --btf or embedded) */
	const char *release;       /* the kernel release (uname -r); NULL: not checked */
};

/* NULL when feature f may work here, else why not (in why, or a constant). */
const char *stk_precondition(enum stk_feature f, const struct stk_precondition_env *env, char *why, size_t len);
/* The same as a result: 0 when f may work here, else -1 with why not in why. */
int stk_precondition_check(enum stk_feature f, const struct stk_precondition_env *env, char *why, size_t len);
/*
 * NULL when rung r may work here: its feature's precondition, its tracepoint
 * in tracefs, BTF for CO-RE, the kernel version its arguments need.
 * Else why not (in why).
 */
const char *stk_rung_precondition(const struct stk_rung *r, const struct stk_precondition_env *env, char *why,
				  size_t len);

/*
 * offcputime's kprobe rung: the text symbol for finish_task_switch in
 * kallsyms, the exact name, else a compiler clone ("finish_task_switch.isra.0").
 * 0 with the name in buf, -1 when there is none.
 */
int stk_find_finish_task_switch(FILE *kallsyms, char *buf, size_t len);

#endif
