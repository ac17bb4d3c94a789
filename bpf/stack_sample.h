/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One captured stack as the BPF side sends it for DWARF unwinding in user
 * space (shared by bpf/ and core/): the task, its kernel frames, its user
 * registers and a copy of its user stack from the stack pointer. Only the
 * first STK_SAMPLE_FIXED + user_bytes bytes travel.
 */
#ifndef STK_STACK_SAMPLE_H
#define STK_STACK_SAMPLE_H

#include "user_regs.h"

#define STK_SAMPLE_KSTACK_MAX 127
/* Upper bound of --stack-bytes: what one scratch slot per CPU can hold. */
#define STK_SAMPLE_STACK_MAX 32768
#define STK_SAMPLE_STACK_CHUNK 1024
/* Pending uretprobes whose real return addresses a sample carries (bpf/uretprobes.h). */
#define STK_SAMPLE_URETPROBES 4

/* flags */
#define STK_SAMPLE_USER_REGS 1    /* regs[] are valid */
#define STK_SAMPLE_REGS_FROM_TASK 2 /* event fired in the kernel: the task's saved user registers */
#define STK_SAMPLE_KERNEL_LOST 4  /* kernel stack requested but bpf_get_stack failed */

struct stk_stack_sample {
	__u32 tgid, tid;
	char comm[16];
	__u32 flags;
	__u32 n_kernel;   /* entries of kernel[] */
	__u32 user_bytes; /* bytes of stack[] copied from regs[STK_UREG_SP] up */
	__u32 cpu;
	__u64 value;      /* weight: 1 per sample (profile) */
	__u64 content_hash; /* offcputime: stk_sample_hash(), the key its time is counted under */
	__u64 time;       /* bpf_ktime_get_ns() when taken (the event log's time of a profile sample) */
	__u64 span_value; /* profile with --span: the thread's innermost span (bpf/event_types.h) */
	__u32 span_label; /* 0: none */
	__u32 span_flags;
	/* The user stack copy holds the uretprobe trampoline where these return
	 * addresses were (innermost first): user space puts them back */
	__u64 uretprobe_trampoline;
	__u64 uretprobe_ret[STK_SAMPLE_URETPROBES];
	__u32 n_uretprobe;
	__u32 pad;
	__u64 regs[STK_UREGS_N];
	__u64 kernel[STK_SAMPLE_KSTACK_MAX];
	__u8 stack[STK_SAMPLE_STACK_MAX];
};

#define STK_SAMPLE_FIXED (sizeof(struct stk_stack_sample) - STK_SAMPLE_STACK_MAX)

#endif
