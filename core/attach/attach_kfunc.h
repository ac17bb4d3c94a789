/*
 * Attaching stackcount's program to kernel functions with the first
 * mechanism that works (the kernel function ladder of core/ladder/ladder.c). Each
 * candidate is loaded and attached for real; a failure part way detaches
 * everything before the next is tried, and legacy kprobe_events entries are
 * removed on every path (libbpf deletes them when their link goes).
 */
#ifndef STK_ATTACH_KFUNC_H
#define STK_ATTACH_KFUNC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/attach/attach_probe.h"

struct stk_kfunc_request {
	char *const *names; /* functions, as matched by core/probe/kernel_match.c */
	size_t n;
	const char *forced; /* --mechanism: the rung to use or fail, or NULL */
	bool kernel_btf;    /* the running kernel's BTF is there (fentry) */
	const char *tracefs_error; /* tracefs unreachable: why (kprobe_legacy), or NULL */
	size_t fentry_max;  /* past this many functions kprobe.multi goes before fentry */
};

/* 0 with s loaded and attached (s->mechanism set), or -1 with err naming each mechanism's reason. */
int stk_kfunc_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_kfunc_request *req,
		     char *err, size_t len);

#endif
