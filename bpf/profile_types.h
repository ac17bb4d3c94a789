/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/profile.bpf.c and cmd/profile.c. */
#ifndef STK_PROFILE_TYPES_H
#define STK_PROFILE_TYPES_H

#include "stack_types.h"

/* For user space: the sampling program (one per rung of user stacks: this name with its suffix) and the maps of its own. */
#define STK_PROFILE_PROGRAM "stk_profile_sample"
#define STK_PROFILE_MAPS { "profile_config", NULL }

/* profile_config (one-entry array map; no global data, so 4.14 loads it). Counts keyed by struct stk_stack_ref. */
struct stk_profile_config {
	struct stk_stack_config stack;
	__u32 include_idle;  /* count the idle task (pid 0) */
	__u32 hashed;        /* stack copies hashed and counted in the kernel, as the other applets' (stk record) */
};

#endif
