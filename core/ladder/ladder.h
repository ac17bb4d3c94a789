/*
 * One ladder per kind of attach point: its mechanisms ("rungs") from the
 * cheapest per event to the one the oldest kernels have. `stk info` prints
 * these tables and the attach code walks the same tables (core/ladder/climb.h),
 * so what info says an applet would use is what it tries, in that order.
 */
#ifndef STK_LADDER_H
#define STK_LADDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ladder/feature.h"
#include "core/unwind/unwind_plan.h"

enum stk_attach_class {
	STK_ATTACH_CPU_SAMPLING,    /* profile */
	STK_ATTACH_KERNEL_FUNCTION, /* stackcount FUNC */
	STK_ATTACH_TRACEPOINT,      /* stackcount t:CAT:EVENT */
	STK_ATTACH_USER_FUNCTION,   /* stackcount LIB:FUNC */
	STK_ATTACH_USDT,            /* stackcount u:LIB:PROBE */
	STK_ATTACH_SCHED_SWITCH,    /* offcputime */
	STK_ATTACH_THREAD_SAMPLING, /* threadstate */
	STK_ATTACH_USER_STACKS,     /* how the stack applets take user stacks (core/unwind/unwind_plan.h) */
	STK_ATTACH_THREAD_SNAPSHOT, /* pmp, threadstate -u: every thread's stack at one moment */
	STK_ATTACH_RES_MEMORY,      /* resources rss: mm counters changing */
	STK_ATTACH_RES_FAULTS,      /* resources faults */
	STK_ATTACH_RES_BLOCK,       /* resources block, block-time, iorq */
	STK_ATTACH_RES_FILE,        /* resources read, write: system call exits */
	STK_ATTACH_RES_SOCKET,      /* resources send, recv */
	STK_ATTACH_RES_SYSCALL,     /* resources syscall: system call entries and exits */
	STK_ATTACH_CLASS_COUNT,
};

/* A rung that needs no BPF feature at all (threadstate's /proc source). */
#define STK_RUNG_NO_BPF STK_FEATURE_COUNT

/* The ids of the rungs whose attach code switches on them. */
enum stk_kfunc_mech {
	STK_KFUNC_FENTRY,        /* BTF trampoline, one program per function */
	STK_KFUNC_KPROBE_MULTI,  /* one fprobe link for all functions (5.18+) */
	STK_KFUNC_KPROBE,        /* perf PMU kprobe per function */
	STK_KFUNC_KPROBE_LEGACY, /* tracefs kprobe_events per function */
};
/* Functions up to which fentry goes before kprobe.multi (stackcount --fentry-max). */
#define STK_KFUNC_FENTRY_MAX_DEFAULT 16
enum stk_sched_mech {
	STK_SCHED_TP_BTF,     /* tp_btf/sched_switch (5.5+, kernel BTF) */
	STK_SCHED_RAW_TP,     /* raw_tp/sched_switch (4.17+) */
	STK_SCHED_TRACEPOINT, /* sched:sched_switch classic record (no BTF needed) */
	STK_SCHED_KPROBE,     /* kprobe on finish_task_switch (kernel BTF for CO-RE) */
	STK_SCHED_MECH_COUNT,
};
enum stk_tracepoint_mech { STK_TP_RAW_TP, STK_TP_CLASSIC };
enum stk_ufunc_mech { STK_UFUNC_UPROBE_MULTI, STK_UFUNC_UPROBE };
enum stk_tsource {
	STK_TSOURCE_ITER,       /* BPF task iterator: every thread, one syscall per pass */
	STK_TSOURCE_TRACEPOINT, /* sched and syscall tracepoints keep a state map */
	STK_TSOURCE_PROC,       /* /proc/PID/task/TID/{stat,syscall,...}, no BPF */
	STK_TSOURCE_COUNT,
};

/* How pmp takes every thread's registers and stack (core/snapshot/bpf/snapshot_source.h). */
enum stk_snap_mech {
	STK_SNAP_TASK_ITER_COPY, /* sleepable task iterator: saved registers, bpf_copy_from_user_task */
	STK_SNAP_PROC,           /* /proc/TID/syscall's sp and pc, process_vm_readv */
	STK_SNAP_PTRACE,         /* stops each thread for its registers, as eu-stack does */
	STK_SNAP_MECH_COUNT,
};

/* The mechanisms of stk resources' sources (core/attach/attach_resources.c). */
enum stk_res_mech {
	STK_RES_TP_BTF,     /* BTF-typed tracepoint (kernel BTF) */
	STK_RES_RAW_TP,     /* raw tracepoint, its arguments read with CO-RE */
	STK_RES_TRACEPOINT, /* classic tracepoint record, fields where tracefs' format says */
	STK_RES_PERF_EVENT, /* a software perf event on every CPU */
	STK_RES_SYS_EXIT,   /* raw_syscalls:sys_exit: the socket system calls */
	STK_RES_MECH_COUNT,
};

/* How user stacks are taken: enum stk_unwind_rung (core/unwind/unwind_plan.h). */

struct stk_rung {
	const char *name; /* what -v, --mechanism and `stk info` say */
	int feature;      /* enum stk_feature it needs (STK_RUNG_NO_BPF: none) */
	int id;           /* the class's own enum value above */
	/* Needs beyond the feature, checked without loading (core/ladder/precondition.c): */
	const char *event;  /* a tracepoint, "category/name", that must exist; NULL: none */
	bool needs_btf;     /* CO-RE reads of kernel structures: some BTF for this kernel */
	unsigned char since_major, since_minor; /* the kernel version its arguments are as read; 0: any */
};

struct stk_ladder {
	const char *name;  /* "kernel function" */
	const char *users; /* "stackcount" */
	const struct stk_rung *rungs;
	size_t n;
};

const struct stk_ladder *stk_ladder_for(enum stk_attach_class c);
/* The rung of class c with this name or id, or NULL. */
const struct stk_rung *stk_rung_by_name(enum stk_attach_class c, const char *name);
const struct stk_rung *stk_rung_by_id(enum stk_attach_class c, int id);
/* "a, b or c": the rung names, for an error about an unknown --mechanism. */
void stk_ladder_names(enum stk_attach_class c, char *buf, size_t len);
/* Whether name is a rung of c (an option's value): 0, or -1 with "OPT NAME: expected a, b or c" in msg. */
int stk_rung_check(enum stk_attach_class c, const char *opt, const char *name, char *msg, size_t len);

/*
 * The order to try for one run. Kernel functions are the one class whose
 * order depends on the run: fentry costs one program and trampoline per
 * function, so past fentry_max functions kprobe.multi (one link for all)
 * goes first. Every other class uses its table order. Returns the count.
 */
size_t stk_ladder_order(enum stk_attach_class c, size_t n_targets, size_t fentry_max,
			const struct stk_rung *order[], size_t max);
/* First rung whose feature the probe results say is available (stk info), or NULL. */
const struct stk_rung *stk_ladder_choose(enum stk_attach_class c, const bool available[STK_FEATURE_COUNT]);
/* The same, of the rungs usable also says may work (NULL: all). */
const struct stk_rung *stk_ladder_choose_usable(enum stk_attach_class c, const bool available[STK_FEATURE_COUNT],
						bool (*usable)(const struct stk_rung *r, void *ctx), void *ctx);

#endif
