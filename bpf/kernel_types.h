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

struct files_struct;
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

/* A task's ids, one per PID namespace from the init one (level 0) to its own (level). */
struct upid {
	int nr;
};
struct pid {
	unsigned int level;
	struct upid numbers[1];
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
	struct mm_struct *mm;               /* resources: whose address space an rss change is */
	struct files_struct *files;         /* resources: the file behind a system call's fd */
	struct uprobe_task *utask;          /* the kernel unwinder: pending uretprobes */
	unsigned long nvcsw, nivcsw; /* pmp: switches out, so a copy can tell that its thread ran meanwhile */
	struct pid *thread_pid; /* the kernel unwinder: the thread's id as its PID namespace knows it (4.19+) */
};

/* pmp: where a thread's stack mapping ends (bpf_find_vma). */
struct vm_area_struct {
	unsigned long vm_start, vm_end;
};

/*
 * resources rss: an address space's resident pages of one kind (file, anon,
 * swap entries, shmem). 6.2 made each a percpu_counter; before, atomic
 * counters in struct mm_rss_stat. bpf_core_type_exists(struct
 * mm_rss_stat___stk) tells them apart.
 */
struct percpu_counter___stk {
	s64 count;
};
struct mm_struct___pcpu {
	struct percpu_counter___stk rss_stat[4];
};
struct mm_rss_stat___stk {
	struct {
		long counter;
	} count[4];
};
struct mm_struct___atomic {
	struct mm_rss_stat___stk rss_stat;
};

/* resources block: a bio as submitted, and a request made of bios (5.11+ tracepoint arguments). */
struct bvec_iter {
	u64 bi_sector;
};
struct bio {
	unsigned int bi_opf; /* REQ_OP_* in the low bits */
	struct bvec_iter bi_iter;
};
/* resources iorq: a request's device (5.11+: part0 a pointer; the disk from the queue from 5.15, rq_disk until 5.16). */
struct block_device {
	u32 bd_dev; /* dev_t */
};
struct gendisk {
	struct block_device *part0;
};
struct request_queue {
	struct gendisk *disk;
};
struct request {
	struct request_queue *q;
	struct gendisk *rq_disk;
	unsigned int cmd_flags;
	u64 __sector;
	unsigned int __data_len;
};

/* resources send/recv: a socket's family and protocol, from a sock or from a file descriptor. */
struct sock_common {
	unsigned short skc_family;
};
struct sock {
	struct sock_common __sk_common;
	u16 sk_protocol; /* an 8-bit bitfield before 5.6: read with BPF_CORE_READ_BITFIELD_PROBED */
};
struct socket {
	struct sock *sk;
};
struct inode {
	unsigned short i_mode;
};
struct file {
	struct inode *f_inode;
	void *private_data; /* a socket's struct socket */
};
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};
struct files_struct {
	struct fdtable *fdt;
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
/* (resources reads orig_x0 and syscallno at system call exit too: x0 then holds the result) */

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
