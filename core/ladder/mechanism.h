/*
 * The ordered mechanism lists (ARCHITECTURE.md): for each kind of attach point,
 * the cheapest mechanism first. Given probed features, the first available
 * entry is the one stk uses; core/attach applies the same lists at run time.
 */
#ifndef STK_MECHANISM_H
#define STK_MECHANISM_H

#include <stddef.h>
#include "core/bpf/features.h"

enum stk_attach_class {
	STK_ATTACH_CPU_SAMPLING,    /* profile */
	STK_ATTACH_KERNEL_FUNCTION, /* stackcount FUNC */
	STK_ATTACH_TRACEPOINT,      /* stackcount t:CAT:EVENT */
	STK_ATTACH_USER_FUNCTION,   /* stackcount LIB:FUNC */
	STK_ATTACH_USDT,            /* stackcount u:LIB:PROBE */
	STK_ATTACH_SCHED_SWITCH,    /* offcputime */
	STK_ATTACH_THREAD_SAMPLING, /* threadstate */
	STK_ATTACH_CLASS_COUNT,
};

/* A mechanism that needs no BPF feature at all (threadstate's /proc source). */
#define STK_MECHANISM_NO_BPF STK_FEATURE_COUNT

struct stk_mechanism {
	int feature;      /* enum stk_feature, or STK_MECHANISM_NO_BPF */
	const char *name; /* what -v and `stk info` print */
};

const char *stk_attach_class_name(enum stk_attach_class c);
const char *stk_attach_class_users(enum stk_attach_class c);
/* The ordered list for a class; *n receives its length. */
const struct stk_mechanism *stk_mechanisms_for(enum stk_attach_class c, size_t *n);
/* First available mechanism, or NULL when none works on this kernel. */
const struct stk_mechanism *stk_mechanism_choose(enum stk_attach_class c,
						 const struct stk_feature_result results[STK_FEATURE_COUNT]);

#endif
