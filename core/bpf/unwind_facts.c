/* The kernel's offer to the user-stack rungs: see unwind_facts.h. */
#include "core/bpf/unwind_facts.h"

#include <stdio.h>
#include <bpf/libbpf.h>

#include "core/base/kernel_release.h"

static bool helper(enum bpf_prog_type type, enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(type, id, NULL) == 1;
}

/* offcputime and stackcount hash stack copies in a bounded loop (5.3). */
static bool kernel_has_bounded_loops(void)
{
	char release[128];
	struct stk_kernel_version v;

	return stk_kernel_release(release, sizeof(release)) || stk_kernel_version_parse(release, &v) ||
	       stk_kernel_version_cmp(&v, 5, 3) >= 0;
}

void stk_unwind_facts_here(bool have_btf, struct stk_unwind_facts *f)
{
#if defined(__x86_64__) || defined(__aarch64__)
	f->arch = true; /* bpf/user_regs.h knows these two */
#else
	f->arch = false;
#endif
	f->btf = have_btf;
	f->get_stack = helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_stack);
	f->bounded_loops = kernel_has_bounded_loops();
	f->bpf_loop = helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop);
}

void stk_unwind_facts_describe(const struct stk_unwind_facts *f, char *buf, size_t len)
{
	struct stk_unwind_plan plan;
	char err[8];

	const struct stk_unwind_want want = { .rung = STK_UNWIND_CFI, .top = STK_UNWIND_CFI };

	stk_unwind_plan_make(&want, f, &plan, err, sizeof(err));
	snprintf(buf, len, "%s, the default%s%s%s (user registers %s; user stack read with %s)",
		 stk_unwind_rung_name(plan.rung), plan.passed_over[0] ? " (" : "", plan.passed_over,
		 plan.passed_over[0] ? ")" : "",
		 helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_pt_regs)
			 ? "from bpf_task_pt_regs when the event is in the kernel"
			 : "from the top of task->stack when the event is in the kernel (before 5.15)",
		 helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_probe_read_user) ? "bpf_probe_read_user"
									: "bpf_probe_read (before 5.5)");
}
