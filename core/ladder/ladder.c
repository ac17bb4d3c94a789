#include "core/ladder/ladder.h"

#include <stdio.h>
#include <string.h>

static const struct stk_rung cpu_sampling[] = {
	{ "perf_event", STK_FEATURE_PERF_EVENT, 0 },
};
static const struct stk_rung kernel_function[] = {
	{ "fentry", STK_FEATURE_FENTRY, STK_KFUNC_FENTRY },
	{ "kprobe.multi", STK_FEATURE_KPROBE_MULTI, STK_KFUNC_KPROBE_MULTI },
	{ "kprobe", STK_FEATURE_KPROBE_PMU, STK_KFUNC_KPROBE },
	{ "kprobe_legacy", STK_FEATURE_KPROBE_LEGACY, STK_KFUNC_KPROBE_LEGACY },
};
static const struct stk_rung tracepoint[] = {
	/* not for syscalls:* events (made from raw_syscalls): those take the next */
	{ "raw_tp", STK_FEATURE_RAW_TP, STK_TP_RAW_TP },
	{ "tracepoint", STK_FEATURE_TRACEPOINT, STK_TP_CLASSIC },
};
static const struct stk_rung user_function[] = {
	{ "uprobe.multi", STK_FEATURE_UPROBE_MULTI, STK_UFUNC_UPROBE_MULTI },
	{ "uprobe", STK_FEATURE_UPROBE, STK_UFUNC_UPROBE },
};
static const struct stk_rung usdt[] = {
	{ "usdt", STK_FEATURE_USDT, 0 },
};
static const struct stk_rung sched_switch[] = {
	{ "tp_btf", STK_FEATURE_TP_BTF, STK_SCHED_TP_BTF },
	{ "raw_tp", STK_FEATURE_RAW_TP, STK_SCHED_RAW_TP },
	{ "tracepoint", STK_FEATURE_TRACEPOINT, STK_SCHED_TRACEPOINT },
	/* finish_task_switch, for the oldest kernels */
	{ "kprobe", STK_FEATURE_KPROBE_PMU, STK_SCHED_KPROBE },
};
static const struct stk_rung thread_sampling[] = {
	{ "task_iter", STK_FEATURE_TASK_ITER, STK_TSOURCE_ITER },
	/* classic tracepoints: no BTF needed */
	{ "tracepoint_state", STK_FEATURE_TRACEPOINT, STK_TSOURCE_TRACEPOINT },
	{ "proc", STK_RUNG_NO_BPF, STK_TSOURCE_PROC },
};

static const struct stk_rung user_stacks[] = {
	{ "cfi", STK_FEATURE_BPF_LOOP, STK_UNWIND_CFI },
	{ "dwarf", STK_FEATURE_GET_STACK, STK_UNWIND_DWARF },
	{ "fp", STK_RUNG_NO_BPF, STK_UNWIND_FP },
};

static const struct stk_rung thread_snapshot[] = {
	{ "task_iter_copy", STK_FEATURE_TASK_ITER_COPY, STK_SNAP_TASK_ITER_COPY },
	/* no BPF: blocked threads from /proc and their memory */
	{ "proc", STK_RUNG_NO_BPF, STK_SNAP_PROC },
	/* the only rung that stops threads: last */
	{ "ptrace", STK_RUNG_NO_BPF, STK_SNAP_PTRACE },
};

#define RUNGS(a) a, sizeof(a) / sizeof(a[0])

static const struct stk_ladder ladders[STK_ATTACH_CLASS_COUNT] = {
	[STK_ATTACH_CPU_SAMPLING] = { "cpu sampling", "profile", RUNGS(cpu_sampling) },
	[STK_ATTACH_KERNEL_FUNCTION] = { "kernel function", "stackcount", RUNGS(kernel_function) },
	[STK_ATTACH_TRACEPOINT] = { "tracepoint", "stackcount", RUNGS(tracepoint) },
	[STK_ATTACH_USER_FUNCTION] = { "user function", "stackcount", RUNGS(user_function) },
	[STK_ATTACH_USDT] = { "usdt probe", "stackcount", RUNGS(usdt) },
	[STK_ATTACH_SCHED_SWITCH] = { "sched_switch", "offcputime", RUNGS(sched_switch) },
	[STK_ATTACH_THREAD_SAMPLING] = { "thread sampling", "threadstate", RUNGS(thread_sampling) },
	[STK_ATTACH_USER_STACKS] = { "user stacks", "profile, offcputime, stackcount", RUNGS(user_stacks) },
	[STK_ATTACH_THREAD_SNAPSHOT] = { "thread snapshot", "pmp", RUNGS(thread_snapshot) },
};

const struct stk_ladder *stk_ladder_for(enum stk_attach_class c)
{
	return &ladders[c];
}

const struct stk_rung *stk_rung_by_name(enum stk_attach_class c, const char *name)
{
	for (size_t i = 0; i < ladders[c].n; i++)
		if (strcmp(ladders[c].rungs[i].name, name) == 0)
			return &ladders[c].rungs[i];
	return NULL;
}

const struct stk_rung *stk_rung_by_id(enum stk_attach_class c, int id)
{
	for (size_t i = 0; i < ladders[c].n; i++)
		if (ladders[c].rungs[i].id == id)
			return &ladders[c].rungs[i];
	return NULL;
}

void stk_ladder_names(enum stk_attach_class c, char *buf, size_t len)
{
	size_t used = 0, n = ladders[c].n;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 ladders[c].rungs[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

size_t stk_ladder_order(enum stk_attach_class c, size_t n_targets, size_t fentry_max,
			const struct stk_rung *order[], size_t max)
{
	size_t n = ladders[c].n < max ? ladders[c].n : max;

	for (size_t i = 0; i < n; i++)
		order[i] = &ladders[c].rungs[i];
	if (c == STK_ATTACH_KERNEL_FUNCTION && n_targets > fentry_max && n >= 2) {
		order[0] = stk_rung_by_id(c, STK_KFUNC_KPROBE_MULTI);
		order[1] = stk_rung_by_id(c, STK_KFUNC_FENTRY);
	}
	return n;
}

const struct stk_rung *stk_ladder_choose(enum stk_attach_class c, const bool available[STK_FEATURE_COUNT])
{
	for (size_t i = 0; i < ladders[c].n; i++) {
		const struct stk_rung *r = &ladders[c].rungs[i];
		if (r->feature == STK_RUNG_NO_BPF || available[r->feature])
			return r;
	}
	return NULL;
}
