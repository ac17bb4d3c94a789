// SPDX-License-Identifier: GPL-2.0
/*
 * threadstate, task iterator source (5.8+, BTF): one pass over every task
 * per sample. For each thread it writes one stk_ts_iter_record into the
 * iterator's seq_file: state, on-CPU flag, the syscall number and arguments
 * from the registers saved at kernel entry, and the kernel stack (for the
 * wchan-like "where does it wait"). User space reads the records with
 * read() on the iterator fd and does everything else. Unless asked for all
 * threads, a thread that cannot be active (see core/threads/thread_active.h: a
 * sleep outside the I/O syscalls, stopped, idle) is skipped here, before
 * its stack is walked: on a host of idle threads a pass costs little more
 * than the walk over the task list.
 *
 * The time spent in the current syscall comes from a raw_tp on sys_enter
 * that keeps each thread's last syscall entry (number and time): no
 * sys_exit is needed, since a thread in a syscall always entered it last.
 *
 * Two programs that differ only in how they find the saved registers:
 * bpf_task_pt_regs() (5.15+), or the top of the task's kernel stack
 * computed as the kernel's task_pt_regs() does (older kernels, where
 * THREAD_SIZE is 16 KiB on x86_64 and on arm64 with 4 KiB pages, and x86
 * has no FRED padding). Which registers hold the syscall number and its
 * arguments is per architecture (x86_64 and arm64 below).
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "threadstate_types.h"
#include "task_state.h"

#define PF_KTHREAD 0x00200000
#define TS_THREAD_SIZE 16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_ts_iter_config);
} ts_iter_config SEC(".maps");

/* The record is too big for the BPF stack: built here, then copied out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_ts_iter_record);
} ts_iter_scratch SEC(".maps");

/* Direct (BTF pointer) loads: cheaper than probe reads, and this runs for every task. */
/* tid -> its last syscall entry; LRU so exited threads cannot fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, struct stk_ts_iter_enter);
} ts_iter_enter SEC(".maps");

/* raw_syscalls:sys_enter(struct pt_regs *regs, long id): no BTF, no tracefs needed. */
SEC("raw_tp/sys_enter")
int stk_ts_iter_sys_enter(u64 *ctx)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct stk_ts_iter_enter e = { .ns = bpf_ktime_get_ns(), .nr = (s64)ctx[1] };

	bpf_map_update_elem(&ts_iter_enter, &tid, &e, BPF_ANY);
	return 0;
}

#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_NOLOAD 0x400

/* Runnable, in D (not idle), or asleep in one of the I/O-wait syscalls. */
static __always_inline bool maybe_active(const struct stk_ts_iter_config *cfg, const struct stk_ts_iter_record *r)
{
	if (r->exit_state)
		return false;
	if (r->state == 0)
		return true;
	if ((r->state & TASK_UNINTERRUPTIBLE) && !(r->state & TASK_NOLOAD))
		return true;
	if (!(r->state & TASK_INTERRUPTIBLE) || !(r->flags & STK_TS_F_REGS))
		return false;
	u64 nr = (u64)r->syscall_nr;
	if (nr >= STK_TS_SYSCALL_BITS)
		return false;
	return (cfg->io_wait[nr / 64] >> (nr % 64)) & 1;
}

#if defined(__TARGET_ARCH_x86)
/* x86_64 pt_regs from r10 to di: r10 r9 r8 ax cx dx si di (then orig_ax). */
struct ts_regs_args {
	u64 r10, r9, r8, ax, cx, dx, si, di;
};
#define REGS_ARGS_OFFSET __builtin_offsetof(struct pt_regs, r10)
#define REGS_ORIG_AX_OFFSET __builtin_offsetof(struct pt_regs, orig_rax)
/* The UAPI struct pt_regs is the kernel's on x86_64. */
#define REGS_SIZE sizeof(struct pt_regs)

/* The syscall number (orig_ax) from the registers saved at kernel entry. */
static __always_inline void read_syscall_nr(struct stk_ts_iter_record *r, const void *regs)
{
	s64 nr;

	if (regs && bpf_probe_read_kernel(&nr, sizeof(nr), (const char *)regs + REGS_ORIG_AX_OFFSET) == 0) {
		r->syscall_nr = nr;
		r->flags |= STK_TS_F_REGS;
	}
}

/* Its arguments: di, si, dx, r10, r8, r9, read in one go. */
static __always_inline void read_syscall_args(struct stk_ts_iter_record *r, const void *regs)
{
	struct ts_regs_args a;

	if (bpf_probe_read_kernel(&a, sizeof(a), (const char *)regs + REGS_ARGS_OFFSET))
		return;
	r->args[0] = a.di;
	r->args[1] = a.si;
	r->args[2] = a.dx;
	r->args[3] = a.r10;
	r->args[4] = a.r8;
	r->args[5] = a.r9;
}
#elif defined(__TARGET_ARCH_arm64)
/* The kernel's arm64 pt_regs (UAPI has only user_pt_regs), CO-RE relocated. */
#define REGS_SIZE bpf_core_type_size(struct pt_regs___stk_arm64)

/* syscallno (-1: none) from the registers saved at kernel entry. It is s32
 * now and was u64 in older kernels: its low 4 bytes (little-endian) hold the
 * number either way. */
static __always_inline void read_syscall_nr(struct stk_ts_iter_record *r, const void *regs)
{
	const struct pt_regs___stk_arm64 *p = regs;
	s32 nr;

	if (regs && bpf_core_read(&nr, sizeof(nr), &p->syscallno) == 0) {
		r->syscall_nr = nr;
		r->flags |= STK_TS_F_REGS;
	}
}

/* Its arguments: x0 as it was at entry (orig_x0; regs[0] takes the return
 * value), x1..x5. */
static __always_inline void read_syscall_args(struct stk_ts_iter_record *r, const void *regs)
{
	const struct pt_regs___stk_arm64 *p = regs;
	u64 x[6];

	if (bpf_core_read(&x, sizeof(x), &p->regs[0]) || bpf_core_read(&x[0], sizeof(x[0]), &p->orig_x0))
		return;
	for (int i = 0; i < 6; i++)
		r->args[i] = x[i];
}
#else
#error "threadstate: no register decoding for this __TARGET_ARCH"
#endif

static __always_inline int sample_task(struct bpf_iter__task *ctx, bool has_task_pt_regs)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	const void *regs = NULL;
	u32 zero = 0;

	if (!t)
		return 0;
	struct stk_ts_iter_config *cfg = bpf_map_lookup_elem(&ts_iter_config, &zero);
	struct stk_ts_iter_record *r = bpf_map_lookup_elem(&ts_iter_scratch, &zero);
	if (!cfg || !r)
		return 0;
	r->tgid = t->tgid;
	if (r->tgid == cfg->skip_tgid)
		return 0;
	r->tid = t->pid;
	r->state = stk_task_state(t);
	/* Read by size: on_cpu and exit_state are not int on every kernel (7.x). */
	r->exit_state = (u32)BPF_CORE_READ_BITFIELD(t, exit_state);
	r->flags = 0;
	if (t->flags & PF_KTHREAD)
		r->flags |= STK_TS_F_KTHREAD;
	if (bpf_core_field_exists(t->on_cpu) && BPF_CORE_READ_BITFIELD(t, on_cpu))
		r->flags |= STK_TS_F_ON_CPU;
	r->syscall_nr = STK_TS_NO_SYSCALL;
	/* A running thread's saved registers are stale (it may be in user mode). */
	if (!(r->flags & (STK_TS_F_KTHREAD | STK_TS_F_ON_CPU)) && !r->exit_state) {
		if (has_task_pt_regs)
			regs = (const void *)bpf_task_pt_regs(t);
		else
			regs = (const char *)t->stack + TS_THREAD_SIZE - REGS_SIZE;
		read_syscall_nr(r, regs);
	}
	if (!cfg->all && !maybe_active(cfg, r))
		return 0;
	__builtin_memset(r->args, 0, sizeof(r->args));
	r->enter_ns = 0;
	if (regs && (r->flags & STK_TS_F_REGS) && r->syscall_nr >= 0) {
		read_syscall_args(r, regs);
		u32 tid = r->tid;
		struct stk_ts_iter_enter *e = bpf_map_lookup_elem(&ts_iter_enter, &tid);
		if (e && e->nr == r->syscall_nr)
			r->enter_ns = e->ns;
	}
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
	r->kstack_bytes = 0;
	u32 depth = cfg->kstack_depth;
	if (depth > STK_TS_KSTACK_MAX)
		depth = STK_TS_KSTACK_MAX;
	/* A runnable thread waits in nothing: its stack only for -k. */
	if (r->state == 0 && depth != STK_TS_KSTACK_MAX)
		depth = 0;
	if (depth && !(r->flags & STK_TS_F_ON_CPU) && !r->exit_state)
		r->kstack_bytes = bpf_get_task_stack(t, r->kstack, depth * sizeof(u64), 0);
	bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}

SEC("iter/task")
int stk_ts_iter(struct bpf_iter__task *ctx)
{
	return sample_task(ctx, true);
}

SEC("iter/task")
int stk_ts_iter_stack_regs(struct bpf_iter__task *ctx)
{
	return sample_task(ctx, false);
}

char LICENSE[] SEC("license") = "GPL";
