/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture for DWARF unwinding, shared by the stack programs: the task's user
 * registers (from the event's context when it interrupted user mode, else
 * the registers the task saved on kernel entry) and a bounded copy of its
 * user stack, into a per-CPU scratch struct stk_stack_sample.
 *
 * Old kernels: bpf_task_pt_regs (5.15) and bpf_probe_read_user (5.5) are
 * used only where libbpf finds them in the kernel's BTF (the branch not taken
 * is dead code the verifier never checks); before that, pt_regs are found at
 * the top of task->stack and user memory is read with bpf_probe_read.
 */
#ifndef STK_STACK_CAPTURE_H
#define STK_STACK_CAPTURE_H

#include <bpf/bpf_core_read.h>
#include "stack_sample.h"
#include "uretprobes.h"

#define STK_PF_KTHREAD 0x00200000

static __always_inline long stk_read_user(void *dst, u32 size, const void *src)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_probe_read_user))
		return bpf_probe_read_user(dst, size, src);
	return bpf_probe_read(dst, size, src);
}

/* The current task's saved user registers. 0, or -1 (kernel thread, unreadable). */
static __always_inline int stk_task_user_regs(stk_uregs_t *out)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	const void *regs;

	if (BPF_CORE_READ(task, flags) & STK_PF_KTHREAD)
		return -1;
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs)) {
		regs = (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
		return bpf_probe_read_kernel(out, sizeof(*out), regs) ? -1 : 0;
	}
	if (!STK_TASK_PT_REGS_SIZE)
		return -1;
	regs = (const char *)BPF_CORE_READ(task, stack) + STK_THREAD_SIZE - STK_TASK_PT_REGS_SIZE;
	return bpf_probe_read(out, sizeof(*out), regs) ? -1 : 0;
}

/*
 * Copies up to want bytes of user stack from sp into dst, in chunks; where a
 * chunk crosses the top of the stack mapping, the rest is filled in halving
 * steps down to 64 bytes, so the outermost frames are kept (the last bytes
 * below the top hold the environment, not frames). Returns the bytes copied.
 */
static __always_inline u32 stk_copy_user_stack(u8 *dst, u64 sp, u32 want)
{
	u32 len = 0, off, size;
	int i;

#pragma unroll
	for (i = 0; i < STK_SAMPLE_STACK_MAX / STK_SAMPLE_STACK_CHUNK; i++) {
		if (len + STK_SAMPLE_STACK_CHUNK > want)
			return len;
		if (stk_read_user(dst + i * STK_SAMPLE_STACK_CHUNK, STK_SAMPLE_STACK_CHUNK,
				  (const void *)(sp + i * STK_SAMPLE_STACK_CHUNK)))
			break;
		len += STK_SAMPLE_STACK_CHUNK;
	}
	if (i == STK_SAMPLE_STACK_MAX / STK_SAMPLE_STACK_CHUNK)
		return len;
#pragma unroll
	for (i = 0; i < 4; i++) {
		size = (STK_SAMPLE_STACK_CHUNK / 2) >> i; /* 512 .. 64: the copy stays whole 64-byte blocks */
		off = len;
		if (off > STK_SAMPLE_STACK_MAX - STK_SAMPLE_STACK_CHUNK)
			return len;
		if (!stk_read_user(dst + off, size, (const void *)(sp + off)))
			len += size;
	}
	return len;
}

/* The real return address of pending uretprobe *ri into slot i of s (none left: nothing). */
static __always_inline void stk_capture_uretprobe(struct stk_stack_sample *s, u64 *ri, u32 i)
{
	if (!*ri || i >= STK_SAMPLE_URETPROBES)
		return;
	s->uretprobe_ret[i] = stk_uretprobe_next(ri);
	s->n_uretprobe = i + 1;
}

/*
 * Fills s->regs and s->stack for the current task. ctx_regs: the event's
 * registers when they may be user mode (perf_event, uprobe), or NULL for
 * events that always fire in the kernel.
 */
static __always_inline void stk_capture_user(struct stk_stack_sample *s, stk_uregs_t *ctx_regs, u32 stack_bytes)
{
	/* the task's saved registers go through the stack copy's buffer, filled after: not the BPF stack */
	stk_uregs_t *r = (stk_uregs_t *)s->stack;

	_Static_assert(sizeof(stk_uregs_t) <= sizeof(s->stack), "the stack copy's buffer holds the registers");
	s->user_bytes = 0;
	if (ctx_regs && stk_regs_user_mode(*ctx_regs)) {
		stk_uregs_from(s->regs, *ctx_regs);
		STK_CTX_READS_END();
	} else {
		if (stk_task_user_regs(r))
			return;
		stk_uregs_from(s->regs, *r);
		s->flags |= STK_SAMPLE_REGS_FROM_TASK;
	}
	s->flags |= STK_SAMPLE_USER_REGS;
	s->user_bytes = stk_copy_user_stack(s->stack, s->regs[STK_UREG_SP], stack_bytes);
	u64 ri = stk_uretprobe_first(&s->uretprobe_trampoline);
	/* STK_SAMPLE_URETPROBES of them, each at a constant index */
	stk_capture_uretprobe(s, &ri, 0);
	stk_capture_uretprobe(s, &ri, 1);
	stk_capture_uretprobe(s, &ri, 2);
	stk_capture_uretprobe(s, &ri, 3);
}

#define STK_HASH_MUL 0x9e3779b97f4a7c15ULL

static __always_inline u64 stk_hash_word(u64 h, u64 w)
{
	h = (h ^ w) * STK_HASH_MUL;
	return h ^ (h >> 29);
}

struct stk_hash_ctx {
	const struct stk_stack_sample *s;
	u64 h;
	u32 blocks; /* 64-byte blocks of the stack copy */
};

/* One 64-byte block of the stack copy into the hash. */
static __always_inline long stk_hash_block(u32 i, void *arg)
{
	struct stk_hash_ctx *c = arg;
	const u64 *w;

	if (i >= c->blocks || i >= STK_SAMPLE_STACK_MAX / 64)
		return 1;
	w = (const u64 *)(c->s->stack + i * 64);
	c->h = stk_hash_word(c->h, w[0]);
	c->h = stk_hash_word(c->h, w[1]);
	c->h = stk_hash_word(c->h, w[2]);
	c->h = stk_hash_word(c->h, w[3]);
	c->h = stk_hash_word(c->h, w[4]);
	c->h = stk_hash_word(c->h, w[5]);
	c->h = stk_hash_word(c->h, w[6]);
	c->h = stk_hash_word(c->h, w[7]);
	return 0;
}

/*
 * A 64-bit hash of everything unwinding reads: task, kernel frames, user
 * registers and every copied stack byte, so two samples that could unwind
 * differently never share a key. The copy (a whole number of 64-byte
 * blocks) is hashed a block per iteration of a bounded loop (5.3+); not
 * bpf_loop: a callback is a subprogram kernels before 5.13 cannot even parse,
 * dead branch or not.
 */
static __always_inline u64 stk_sample_hash(const struct stk_stack_sample *s)
{
	struct stk_hash_ctx c = { .s = s, .blocks = s->user_bytes / 64 };
	u32 nk = s->n_kernel, i;

	c.h = stk_hash_word(0x243f6a8885a308d3ULL, ((u64)s->tgid << 32) | s->flags);
	c.h = stk_hash_word(c.h, ((u64)nk << 32) | s->user_bytes);
	for (i = 0; i < STK_SAMPLE_KSTACK_MAX; i++) {
		if (i >= nk)
			break;
		c.h = stk_hash_word(c.h, s->kernel[i]);
	}
	for (i = 0; i < STK_UREGS_N; i++)
		c.h = stk_hash_word(c.h, s->regs[i]);
	for (i = 0; i < STK_SAMPLE_STACK_MAX / 64; i++)
		if (stk_hash_block(i, &c))
			break;
	return c.h;
}

/* Bytes of s to send: the fixed part and the copied stack. */
static __always_inline u64 stk_sample_size(const struct stk_stack_sample *s)
{
	u64 n = s->user_bytes;

	if (n > STK_SAMPLE_STACK_MAX)
		n = STK_SAMPLE_STACK_MAX;
	return STK_SAMPLE_FIXED + n;
}

/* A sample of the current task: who, with what weight, and its kernel frames when kernel. */
static __always_inline void stk_sample_begin(void *ctx, struct stk_stack_sample *s, u32 tgid, u32 tid, u64 value,
					     bool kernel)
{
	long n;

	s->tgid = tgid;
	s->tid = tid;
	bpf_get_current_comm(&s->comm, sizeof(s->comm));
	s->flags = 0;
	s->n_kernel = 0;
	s->user_bytes = 0;
	s->value = value;
	s->time = bpf_ktime_get_ns();
	s->cpu = bpf_get_smp_processor_id();
	s->span_label = 0;
	s->span_flags = 0;
	s->span_value = 0;
	s->n_uretprobe = 0;
	if (kernel) {
		n = bpf_get_stack(ctx, s->kernel, sizeof(s->kernel), 0);
		if (n > 0)
			s->n_kernel = n / sizeof(u64);
		else if (n < 0)
			s->flags |= STK_SAMPLE_KERNEL_LOST;
	}
}

/*
 * The hashed path of offcputime, stackcount and threadstate -u (one event per context switch
 * or probe hit): captures the current task's stacks into the CPU's scratch
 * sample (kernel frames if kernel, user registers and stack if user; user_ctx
 * as for stk_capture_user) and sends it when its content is new. Returns the
 * content hash to count under, or 0 when the sample had no room in the
 * buffer and no earlier sample had its content: the caller then counts the
 * event by frame pointers, so it keeps a stack, and a later event with the
 * same content tries again. Maps: scratch an ARRAY of stk_stack_sample (one
 * per CPU), samples a PERF_EVENT_ARRAY, sent a HASH u64 -> u8, stats as
 * stk_stat_inc (stack_counting.h).
 */
static __always_inline u64 stk_capture_hashed(void *ctx, void *scratch, void *samples, void *sent, void *stats,
					      u32 tgid, u32 tid, bool kernel, bool user, stk_uregs_t *user_ctx,
					      u32 stack_bytes)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stk_stack_sample *s = bpf_map_lookup_elem(scratch, &cpu);
	u8 one = 1;
	long err;
	u64 h;

	if (!s)
		return 0;
	stk_sample_begin(ctx, s, tgid, tid, 0, kernel);
	if (user)
		stk_capture_user(s, user_ctx, stack_bytes);
	h = stk_sample_hash(s);
	s->content_hash = h;
	if (bpf_map_lookup_elem(sent, &h))
		return h;
	err = bpf_perf_event_output(ctx, samples, BPF_F_CURRENT_CPU, s, stk_sample_size(s));
	if (err) {
		/* Before user space opened the buffer (threadstate attaches first) it was not full. */
		if (err != -STK_ENOENT)
			stk_stat_inc(stats, STK_STAT_SAMPLES_LOST);
		return 0;
	}
	stk_stat_inc(stats, STK_STAT_SAMPLES_SENT);
	if (bpf_map_update_elem(sent, &h, &one, BPF_NOEXIST) && !bpf_map_lookup_elem(sent, &h))
		stk_stat_inc(stats, STK_STAT_SENT_FULL);
	return h;
}

#endif
