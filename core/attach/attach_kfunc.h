/*
 * Attaching stackcount's program to kernel functions with the first
 * mechanism that works (order and reasons in core/ladder/kfunc_mech.h). Each
 * candidate is loaded and attached for real; a failure part way detaches
 * everything before the next is tried, and legacy kprobe_events entries are
 * removed on every path (libbpf deletes them when their link goes).
 */
#ifndef STK_ATTACH_KFUNC_H
#define STK_ATTACH_KFUNC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/attach/attach_probe.h"
#include "core/ladder/kfunc_mech.h"

struct stk_kfunc_request {
	char *const *names; /* functions, as matched by core/kernel_match */
	size_t n;
	int forced;         /* enum stk_kfunc_mech to use or fail, or -1 */
	bool kernel_btf;    /* the running kernel's BTF is there (fentry) */
	size_t fentry_max;
};

/* 0 with s loaded and attached (s->mechanism set), or -1 with err naming each mechanism's reason. */
int stk_kfunc_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_kfunc_request *req,
		     char *err, size_t len);

#endif
