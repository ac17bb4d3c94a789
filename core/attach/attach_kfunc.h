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

/*
 * For a capture that loads its programs with others' in one object (stk
 * record): the program of mechanism (a rung's name stk_kfunc_attach chose;
 * without the --unwind suffix; NULL when no rung has that name); before
 * load, the program made ready for it (fentry: its target, the first
 * function); after load, every function attached to that program of skel
 * (the caller's, who keeps it; program with its suffix). 0, or -1 with err
 * and nothing attached.
 */
const char *stk_kfunc_program(const char *mechanism);
int stk_kfunc_prepare_in(struct bpf_program *prog, const char *mechanism, const struct stk_kfunc_request *req,
			 char *err, size_t len);
int stk_kfunc_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			const struct stk_kfunc_request *req, char *err, size_t len);

#endif
