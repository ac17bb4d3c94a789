#include "core/bpf/unwind_path.h"

#include <stdio.h>
#include <bpf/libbpf.h>

#include "core/base/kernel_release.h"

static bool helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL) == 1;
}

/* offcputime and stackcount hash the stack copy in a bounded loop (5.3). */
static bool kernel_has_bounded_loops(void)
{
	char release[128];
	struct stk_kernel_version v;

	return stk_kernel_release(release, sizeof(release)) || stk_kernel_version_parse(release, &v) ||
	       stk_kernel_version_cmp(&v, 5, 3) >= 0;
}

void stk_unwind_path_describe(bool have_btf, bool have_get_stack, char *buf, size_t len)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
	/* as stk_unwind_settle(): bpf/user_regs.h knows these two */
	(void)have_btf;
	(void)have_get_stack;
	snprintf(buf, len, "fp (dwarf needs x86_64 or aarch64)");
	return;
#endif
	if (!have_btf || !have_get_stack) {
		snprintf(buf, len, "fp (dwarf needs %s)",
			 !have_btf ? "kernel BTF: none found, see --btf" : "bpf_get_stack (4.18)");
		return;
	}
	snprintf(buf, len,
		 "dwarf, the default (user registers %s; user stack read with %s%s)",
		 helper(BPF_FUNC_task_pt_regs) ? "from bpf_task_pt_regs when the event is in the kernel"
					       : "from the top of task->stack when the event is in the kernel (before 5.15)",
		 helper(BPF_FUNC_probe_read_user) ? "bpf_probe_read_user" : "bpf_probe_read (before 5.5)",
		 kernel_has_bounded_loops() ? "" : "; offcputime and stackcount take fp: their hash loop needs 5.3");
}
