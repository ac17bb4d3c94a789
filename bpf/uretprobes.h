/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The current task's pending uretprobes (a --span function's, or anyone's):
 * each put the uretprobe trampoline's address where a return address was;
 * the task's return instances, innermost first, keep the real ones. Both
 * unwinders use them: the kernel walk swaps a trampoline return address
 * for the real one as it meets it (bpf/unwind.bpf.c), a stack copy carries
 * the real ones for user space to put back (bpf/stack_capture.h). CO-RE,
 * where CONFIG_UPROBES has these fields; elsewhere there are none.
 */
#ifndef STK_URETPROBES_H
#define STK_URETPROBES_H

#include <bpf/bpf_core_read.h>

/* The innermost pending return instance (0: none) and the trampoline's address. */
static __always_inline u64 stk_uretprobe_first(u64 *trampoline)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct uprobe_task *ut;
	u64 ri;

	*trampoline = 0;
	if (!bpf_core_field_exists(t->utask) || !bpf_core_field_exists(t->mm->uprobes_state))
		return 0;
	ut = BPF_CORE_READ(t, utask);
	if (!ut || !(ri = (u64)BPF_CORE_READ(ut, return_instances)))
		return 0;
	*trampoline = BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr);
	return ri;
}

/* Return instance ri's real return address; *ri moves to the next one out (0: none). */
static __always_inline u64 stk_uretprobe_next(u64 *ri)
{
	struct return_instance *r = (void *)*ri;

	*ri = (u64)BPF_CORE_READ(r, next);
	return BPF_CORE_READ(r, orig_ret_vaddr);
}

#endif
