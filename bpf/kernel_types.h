/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types stk's BPF programs touch, and nothing else.
 *
 * Hand-kept instead of a generated vmlinux.h: it is reproducible, does not
 * depend on the build host's kernel, and documents every field we rely on.
 * All structs carry preserve_access_index, so field offsets are CO-RE
 * relocated against the running kernel's BTF at load time; only the names
 * and types here matter, never the layout.
 *
 * UAPI types (struct pt_regs for x86_64, struct user_pt_regs for arm64,
 * struct bpf_perf_event_data, the BPF enums) come from linux-libc-dev's
 * headers, which are stable ABI.
 */
#ifndef STK_KERNEL_TYPES_H
#define STK_KERNEL_TYPES_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct signal_struct___stk {
	struct {
		int counter;
	} live; /* threads of the group still alive (atomic_t) */
};

/* The kernel unwinder: uretprobes put a trampoline's address where a return
 * address was; the task's return instances (innermost first) keep the real
 * ones (CONFIG_UPROBES). */
struct return_instance {
	unsigned long orig_ret_vaddr;
	struct return_instance *next;
};

struct uprobe_task {
	struct return_instance *return_instances;
};

struct xol_area {
	unsigned long vaddr; /* the uretprobe trampoline */
};

struct uprobes_state {
	struct xol_area *xol_area;
};

struct mm_struct {
	struct uprobes_state uprobes_state;
};

struct task_struct {
	unsigned int __state; /* 5.14+; `state` before (task_struct___old) */
	unsigned int flags;   /* PF_KTHREAD */
	int pid;
	int tgid;
	char comm[16];
	int on_cpu;     /* threadstate: running right now (CONFIG_SMP); read by size */
	int exit_state; /* threadstate: EXIT_ZOMBIE / EXIT_DEAD; read by size */
	void *stack;    /* threadstate: kernel stack, pt_regs at its top before 5.15 */
	struct signal_struct___stk *signal; /* the kernel unwinder: a process's last thread exiting */
	struct uprobe_task *utask;          /* the kernel unwinder: pending uretprobes */
	struct mm_struct *mm;
};

/* arm64's kernel struct pt_regs (its UAPI has only user_pt_regs): the
 * registers saved at kernel entry, for threadstate's syscall decoding. In the
 * kernel, regs[] sits in an anonymous union; CO-RE matches through it.
 * (libbpf's bpf_tracing.h has its own pt_regs___arm64.) */
struct pt_regs___stk_arm64 {
	u64 regs[31];
	u64 orig_x0;
	s32 syscallno;
};

/* task_struct before 5.14: probe with bpf_core_field_exists(). */
struct task_struct___old {
	long state;
};

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	u64 session_id;
	u64 seq_num;
};

/* Context of SEC("iter/task") programs (5.8+). */
struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
};

#pragma clang attribute pop

#endif
