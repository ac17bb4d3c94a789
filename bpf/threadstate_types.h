/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records shared by threadstate's BPF programs and user space: the task
 * iterator's per-thread record (bpf/threadstate.bpf.c) and the per-thread
 * state the tracepoints maintain (bpf/threadstate_tp.bpf.c).
 */
#ifndef STK_THREADSTATE_TYPES_H
#define STK_THREADSTATE_TYPES_H

#define STK_TS_COMM_LEN 16
/* Kernel frames the iterator keeps per thread (wchan needs the first few). */
#define STK_TS_KSTACK_MAX 48

/* Thread states as both BPF sides report them (user space: enum stk_tstate). */
#define STK_TS_RUN 0
#define STK_TS_RUNQ 1
#define STK_TS_SLEEP 2
#define STK_TS_DISK 3
#define STK_TS_STOPPED 4
#define STK_TS_ZOMBIE 5
#define STK_TS_IDLE 6

/* syscall_nr values that are not syscall numbers. */
#define STK_TS_NO_SYSCALL (-1)      /* in user mode or a kernel thread */
#define STK_TS_SYSCALL_UNKNOWN (-2) /* the source cannot tell */

/* Iterator record flags. */
#define STK_TS_F_KTHREAD 0x1
#define STK_TS_F_ON_CPU 0x2
#define STK_TS_F_REGS 0x4 /* syscall_nr and args were read from the task's registers */

/* Syscall numbers below this can be marked as waits for I/O. */
#define STK_TS_SYSCALL_BITS 512

struct stk_ts_iter_config {
	__u32 kstack_depth; /* frames to keep: 0 none */
	__u32 skip_tgid;    /* stk itself */
	__u32 all;          /* emit every thread, not only the maybe-active ones */
	__u32 pad;
	/* The active rule's I/O-wait syscalls (user space checks the fd type after). */
	__u64 io_wait[STK_TS_SYSCALL_BITS / 64];
};

struct stk_ts_iter_record {
	__u32 tid, tgid;
	__u32 flags;
	__u32 state;      /* task_struct __state / state */
	__u32 exit_state;
	__s32 kstack_bytes; /* bpf_get_task_stack's result: bytes, or a negative error */
	__s64 syscall_nr;   /* orig_ax when F_REGS */
	__u64 enter_ns;     /* bpf_ktime_get_ns() when it entered that syscall, 0 unknown */
	__u64 args[6];
	char comm[STK_TS_COMM_LEN];
	__u64 kstack[STK_TS_KSTACK_MAX];
};

/* The last syscall a thread entered (raw_tp sys_enter), for the iterator's syscall time. */
struct stk_ts_iter_enter {
	__u64 ns;
	__s64 nr;
};

struct stk_ts_tp_config {
	__u32 kernel_stacks; /* take the stack id at switch-out */
	__u32 user_stacks;
	__u32 stack_bytes;   /* --unwind dwarf: user stack copied at switch-out */
};

/* What the tracepoints know about one thread, keyed by tid. */
struct stk_ts_tp_thread {
	__u32 tgid;       /* 0 until the thread ran while a program watched */
	__u32 state;      /* STK_TS_* */
	__s32 syscall_nr; /* or STK_TS_NO_SYSCALL / STK_TS_SYSCALL_UNKNOWN */
	__s32 kstack_id, ustack_id;
	__u32 pad;
	__u64 ustack_hash; /* --unwind dwarf: content hash of the user stack sample (0: ustack_id, by frame pointers) */
	__u64 args[6];
	__u64 enter_ns;   /* bpf_ktime_get_ns() at sys_enter (CLOCK_MONOTONIC) */
	char comm[STK_TS_COMM_LEN];
};

#define STK_TS_TP_STAT_THREADS_FULL 0
#define STK_TS_TP_STAT_COUNT 1

#endif
