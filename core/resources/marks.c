/* Frames that say what a resources stack's numbers are: see marks.h. */
#include "core/resources/marks.h"

#include <errno.h>
#include <linux/types.h>
#include <string.h>

#include "bpf/resources_types.h"
#include "core/stack/stack_mark.h"
#include "core/threads/syscall_table.h"

/* Writeback's flusher: a kworker running the writeback work. */
static bool is_writeback(const struct stk_stack *st)
{
	for (size_t i = 0; i < st->n_kernel; i++) {
		const char *s = st->kernel[i].symbol;

		if (s && (strcmp(s, "wb_workfn") == 0 || strcmp(s, "wb_writeback") == 0 || strcmp(s, "wb_do_writeback") == 0))
			return true;
	}
	return false;
}

const char *stk_res_who_label(const struct stk_stack *st, uint32_t who)
{
	if (who == STK_WHO_IO_WORKER)
		return "[io_uring worker]";
	if (who != STK_WHO_KTHREAD)
		return NULL;
	return is_writeback(st) ? "[kernel thread: writeback]" : "[kernel thread]";
}

int stk_res_mark(struct stk_stack *st, const struct stk_stack_ref *ref, unsigned kind, bool user_only)
{
	const char *who;

	if (kind == STK_RES_BLOCK || kind == STK_RES_BLOCK_TIME || kind == STK_RES_IORQ) {
		if (stk_stack_mark_leaf(st, ref->detail == STK_RES_BLOCK_WRITE ? "[block write]" : "[block read]"))
			return -1;
	} else if (ref->detail && !user_only) {
		/* a system call's bytes: its name stands for the kernel frames not taken */
		if (stk_stack_mark_leaf(st, stk_syscall_frame((int)ref->detail - 1)))
			return -1;
	}
	/* without BTF a kernel thread shows as one without a user stack */
	uint32_t who_id = ref->who;
	if (who_id == STK_WHO_USER && ref->user_stack_id == -EFAULT && !ref->user_chain && !ref->copy)
		who_id = STK_WHO_KTHREAD;
	who = stk_res_who_label(st, who_id);
	return who ? stk_stack_mark_root(st, who) : 0;
}
