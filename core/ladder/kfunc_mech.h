/*
 * stackcount's kernel-function mechanisms and the order they are tried in,
 * as pure helpers (core/attach/attach_kfunc.c does the attaching).
 *
 * fentry is the cheapest per event, but its target is fixed at program load,
 * so every function costs one program and one trampoline (stk loads the
 * first through libbpf and clones its final instructions for the rest).
 * That is right for a few functions; for many, one kprobe.multi link (one
 * fprobe, 5.18+) attaches them all in a single system call. So up to
 * fentry_max functions the order is fentry > kprobe.multi > kprobe >
 * kprobe_legacy, beyond it kprobe.multi > fentry > kprobe > kprobe_legacy.
 */
#ifndef STK_KFUNC_MECH_H
#define STK_KFUNC_MECH_H

#include <stddef.h>

enum stk_kfunc_mech {
	STK_KFUNC_FENTRY,        /* BTF trampoline, one program per function */
	STK_KFUNC_KPROBE_MULTI,  /* one fprobe link for all functions */
	STK_KFUNC_KPROBE,        /* perf PMU kprobe per function */
	STK_KFUNC_KPROBE_LEGACY, /* tracefs kprobe_events per function */
	STK_KFUNC_MECH_COUNT,
};

/* Functions up to which fentry is tried first (see above). */
#define STK_KFUNC_FENTRY_MAX_DEFAULT 16

const char *stk_kfunc_mech_name(enum stk_kfunc_mech m);
/* "fentry", "kprobe.multi", "kprobe", "kprobe_legacy" -> m. 0, or -1 if unknown. */
int stk_kfunc_mech_from_name(const char *name, enum stk_kfunc_mech *m);
/* The order for n functions; returns how many entries it wrote (all of them). */
size_t stk_kfunc_order(size_t n, size_t fentry_max, enum stk_kfunc_mech order[STK_KFUNC_MECH_COUNT]);

#endif
