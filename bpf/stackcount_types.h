/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/stackcount.bpf.c and cmd/stackcount.c. */
#ifndef STK_STACKCOUNT_TYPES_H
#define STK_STACKCOUNT_TYPES_H

#include "stack_types.h"

/* sc_config (one-entry array map; no global data, so 4.14 loads it). Counts keyed by struct stk_stack_ref. */
struct stk_sc_config {
	struct stk_stack_config stack;
	__u32 filter_cpu;    /* -c: only this CPU */
	__u32 cpu;
};

#endif
