#include "core/ladder/ladder.h"

#include <stdio.h>
#include <string.h>

/* A rung: name, the feature it needs, the class's id for it; then what else it needs, if anything. */
#define RUNG(n, f, i, ...) { .name = (n), .feature = (f), .id = (i), __VA_ARGS__ }

static const struct stk_rung cpu_sampling[] = {
	RUNG("perf_event", STK_FEATURE_PERF_EVENT, 0),
};
static const struct stk_rung kernel_function[] = {
	RUNG("fentry", STK_FEATURE_FENTRY, STK_KFUNC_FENTRY),
	RUNG("kprobe.multi", STK_FEATURE_KPROBE_MULTI, STK_KFUNC_KPROBE_MULTI),
	RUNG("kprobe", STK_FEATURE_KPROBE_PMU, STK_KFUNC_KPROBE),
	RUNG("kprobe_legacy", STK_FEATURE_KPROBE_LEGACY, STK_KFUNC_KPROBE_LEGACY),
};
static const struct stk_rung tracepoint[] = {
	/* not for syscalls:* events (made from raw_syscalls): those take the next */
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_TP_RAW_TP),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_TP_CLASSIC),
};
static const struct stk_rung user_function[] = {
	RUNG("uprobe.multi", STK_FEATURE_UPROBE_MULTI, STK_UFUNC_UPROBE_MULTI),
	RUNG("uprobe", STK_FEATURE_UPROBE, STK_UFUNC_UPROBE),
};
static const struct stk_rung usdt[] = {
	RUNG("usdt", STK_FEATURE_USDT, 0),
};
static const struct stk_rung sched_switch[] = {
	RUNG("tp_btf", STK_FEATURE_TP_BTF, STK_SCHED_TP_BTF),
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_SCHED_RAW_TP),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_SCHED_TRACEPOINT),
	/* finish_task_switch, for the oldest kernels */
	RUNG("kprobe", STK_FEATURE_KPROBE_PMU, STK_SCHED_KPROBE),
};
static const struct stk_rung thread_sampling[] = {
	RUNG("task_iter", STK_FEATURE_TASK_ITER, STK_TSOURCE_ITER),
	/* classic tracepoints: no BTF needed */
	RUNG("tracepoint_state", STK_FEATURE_TRACEPOINT, STK_TSOURCE_TRACEPOINT),
	RUNG("proc", STK_RUNG_NO_BPF, STK_TSOURCE_PROC),
};

/* In the unwinding plan's order and names (core/unwind/unwind_plan.h), which it climbs by itself. */
static const struct stk_rung user_stacks[] = {
	RUNG(STK_UNWIND_CFI_NAME, STK_FEATURE_BPF_LOOP, STK_UNWIND_CFI),
	RUNG(STK_UNWIND_DWARF_NAME, STK_FEATURE_GET_STACK, STK_UNWIND_DWARF),
	RUNG(STK_UNWIND_FP_NAME, STK_RUNG_NO_BPF, STK_UNWIND_FP),
};

/*
 * stk resources, a ladder per source of events. The raw_tp rungs read the
 * tracepoint's arguments (kernel structures) with CO-RE; the classic
 * tracepoints read their record where tracefs' format file says.
 */
static const struct stk_rung res_memory[] = {
	RUNG("tp_btf", STK_FEATURE_TP_BTF, STK_RES_TP_BTF, .event = "kmem/rss_stat"),
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_RES_RAW_TP, .event = "kmem/rss_stat", .needs_btf = true),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "kmem/rss_stat"),
};
static const struct stk_rung res_faults[] = {
	/* the software page-faults event: every architecture, every Nth by its period */
	RUNG("perf_event", STK_FEATURE_PERF_EVENT, STK_RES_PERF_EVENT),
	/* faults in user mode only; x86 has it */
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "exceptions/page_fault_user"),
};
static const struct stk_rung res_block[] = {
	/* before 5.11 these tracepoints took the request queue first */
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_RES_RAW_TP, .event = "block/block_getrq", .needs_btf = true,
	     .since_major = 5, .since_minor = 11),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "block/block_getrq"),
};
static const struct stk_rung res_file[] = {
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_RES_RAW_TP, .event = "raw_syscalls/sys_exit", .needs_btf = true),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "raw_syscalls/sys_exit"),
};
static const struct stk_rung res_socket[] = {
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_RES_RAW_TP, .event = "sock/sock_send_length", .needs_btf = true),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "sock/sock_send_length"),
	/* the socket system calls, and read/write on sockets: the file's socket read with CO-RE */
	RUNG("sys_exit", STK_FEATURE_RAW_TP, STK_RES_SYS_EXIT, .event = "raw_syscalls/sys_exit", .needs_btf = true),
};

static const struct stk_rung res_syscall[] = {
	RUNG("raw_tp", STK_FEATURE_RAW_TP, STK_RES_RAW_TP, .event = "raw_syscalls/sys_exit"),
	RUNG("tracepoint", STK_FEATURE_TRACEPOINT, STK_RES_TRACEPOINT, .event = "raw_syscalls/sys_exit"),
};

static const struct stk_rung thread_snapshot[] = {
	RUNG("task_iter_copy", STK_FEATURE_TASK_ITER_COPY, STK_SNAP_TASK_ITER_COPY),
	/* no BPF: blocked threads from /proc and their memory */
	RUNG("proc", STK_RUNG_NO_BPF, STK_SNAP_PROC),
	/* the only rung that stops threads: last */
	RUNG("ptrace", STK_RUNG_NO_BPF, STK_SNAP_PTRACE),
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
	[STK_ATTACH_USER_STACKS] = { "user stacks", "profile, offcputime, stackcount, resources", RUNGS(user_stacks) },
	[STK_ATTACH_THREAD_SNAPSHOT] = { "thread snapshot", "pmp", RUNGS(thread_snapshot) },
	[STK_ATTACH_RES_MEMORY] = { "memory", "resources", RUNGS(res_memory) },
	[STK_ATTACH_RES_FAULTS] = { "faults", "resources", RUNGS(res_faults) },
	[STK_ATTACH_RES_BLOCK] = { "block", "resources", RUNGS(res_block) },
	[STK_ATTACH_RES_FILE] = { "files", "resources", RUNGS(res_file) },
	[STK_ATTACH_RES_SOCKET] = { "sockets", "resources", RUNGS(res_socket) },
	[STK_ATTACH_RES_SYSCALL] = { "syscalls", "resources", RUNGS(res_syscall) },
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

const struct stk_rung *stk_ladder_choose_usable(enum stk_attach_class c, const bool available[STK_FEATURE_COUNT],
						bool (*usable)(const struct stk_rung *r, void *ctx), void *ctx)
{
	for (size_t i = 0; i < ladders[c].n; i++) {
		const struct stk_rung *r = &ladders[c].rungs[i];
		if ((r->feature == STK_RUNG_NO_BPF || available[r->feature]) && (!usable || usable(r, ctx)))
			return r;
	}
	return NULL;
}

const struct stk_rung *stk_ladder_choose(enum stk_attach_class c, const bool available[STK_FEATURE_COUNT])
{
	return stk_ladder_choose_usable(c, available, NULL, NULL);
}

int stk_rung_check(enum stk_attach_class c, const char *opt, const char *name, char *msg, size_t len)
{
	char names[128];

	if (stk_rung_by_name(c, name))
		return 0;
	stk_ladder_names(c, names, sizeof(names));
	snprintf(msg, len, "%s %s: expected %s", opt, name, names);
	return -1;
}
