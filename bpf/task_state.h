/* SPDX-License-Identifier: GPL-2.0 */
/* A task's scheduler state word, as every kernel names it (CO-RE). */
#ifndef STK_TASK_STATE_H
#define STK_TASK_STATE_H

#include <bpf/bpf_core_read.h>

/* __state since 5.14, state (a long) before. */
static __always_inline u32 stk_task_state(struct task_struct *t)
{
	struct task_struct___old *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return (u32)old->state;
}

#endif
