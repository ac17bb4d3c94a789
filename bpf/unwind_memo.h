/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's walks, kept (struct stk_walk_memo in bpf/unwind_types.h): the
 * reads a walk makes, recorded as it goes; the check that a kept walk still
 * holds (its words read again, a window at a time); keeping a walk once its
 * chain has an id. Part of bpf/unwind.bpf.c (its scratch, stats and hash).
 */
#ifndef STK_UNWIND_MEMO_H
#define STK_UNWIND_MEMO_H

static __always_inline u64 mix(u64 h, u64 v)
{
	h = (h ^ v) * HASH_MUL;
	return h ^ (h >> 29);
}

#define MEMO_SEED 0x452821e638d01377ULL
#define MEMO_FP_SEED 0xbe5466cf34e90c6cULL

/* A used frame pointer's part of the hash: its value and which read it came from (the sum is order-free). */
static __always_inline u64 memo_fp_part(u64 v, u32 read)
{
	return mix(MEMO_FP_SEED ^ read, v);
}

/*
 * A read the walk made (16 bytes when wide: v0 then v1) into the record a
 * kept walk re-reads; one the record cannot hold (too many, below the
 * starting sp) means this walk is not kept. fp: v0 is a saved frame
 * pointer, the walk's frame pointer from here (memo_fp_use counts it once
 * used).
 */
static __always_inline void memo_note(struct stk_walk *w, u64 addr, u64 v0, u64 v1, bool wide, bool fp)
{
	u32 n = w->memo.n_reads, f = w->memo.n_far, len = wide ? 16 : 8;
	u64 off = addr - w->memo_key.sp;
	u16 r;

	if (!w->memo_keep)
		return;
	if (n >= STK_WALK_MEMO_READS) {
		w->memo_keep = 0;
		return;
	}
	if (addr >= w->memo_key.sp && !(off & 7) && off / 8 < STK_WALK_MEMO_NEAR) {
		r = (u16)(off / 8);
		if (off + len > w->memo.span)
			w->memo.span = off + len;
	} else if (f < STK_WALK_MEMO_FARS) {
		w->memo.far[f & (STK_WALK_MEMO_FARS - 1)] = addr;
		w->memo.n_far = f + 1;
		r = (u16)(STK_WALK_MEMO_FAR | f);
	} else {
		w->memo_keep = 0;
		return;
	}
	w->memo.reads[n & (STK_WALK_MEMO_READS - 1)] = r | (wide ? STK_WALK_MEMO_WIDE : 0) | (fp ? STK_WALK_MEMO_FP : 0);
	w->memo.n_reads = n + 1;
	if (fp)
		w->fp_from = n;
	else
		w->memo.hash = mix(w->memo.hash, v0);
	if (wide)
		w->memo.hash = mix(w->memo.hash, v1);
}

/*
 * The walk uses its frame pointer's value (a CFA from it, a frame record
 * at it): the read it came from counts from now on (the registers' fp, when
 * it came from them, must be the same for a kept walk to stand in).
 */
static __always_inline void memo_fp_use(struct stk_walk *w)
{
	u32 i = w->fp_from;
	u16 *r;

	if (!w->memo_keep || i == STK_WALK_FP_FROM_NONE)
		return;
	if (i == STK_WALK_FP_FROM_REGS) {
		w->memo.fp_used = 1;
		return;
	}
	r = &w->memo.reads[i & (STK_WALK_MEMO_READS - 1)];
	if ((*r & STK_WALK_MEMO_FP) && !(*r & STK_WALK_MEMO_FP_USED)) {
		*r |= STK_WALK_MEMO_FP_USED;
		w->memo_fp_sum += memo_fp_part(w->fp, i);
	}
}

/* A frame-pointer guess begins (fp_step): the record as it is, for memo_guess_failed to go back to. */
static __always_inline void memo_guess_begin(struct stk_walk *w)
{
	u32 i = w->fp_from;

	if (!w->memo_keep)
		return;
	w->guess.hash = w->memo.hash;
	w->guess.fp_sum = w->memo_fp_sum;
	w->guess.sp = w->sp;
	w->guess.n_reads = w->memo.n_reads;
	w->guess.span = w->memo.span;
	w->guess.n_far = w->memo.n_far;
	w->guess.fp_used = w->memo.fp_used;
	w->guess.fp_from = i;
	w->guess.fp_unknown = w->fp_unknown;
	w->guess.fp_read = i < STK_WALK_MEMO_READS ? w->memo.reads[i & (STK_WALK_MEMO_READS - 1)] : 0;
}

/*
 * The walk ends on that guess, which led nowhere (STK_STOP_FP_END): the
 * record goes back to before it, and notes the guess for the check to make
 * again (memo_tail_holds): what the guess read was data, different every
 * time, while the chain is the same as long as the guess still fails.
 */
static __always_inline void memo_guess_failed(struct stk_walk *w)
{
	u32 i = w->guess.fp_from;

	if (!w->memo_keep)
		return;
	w->memo.hash = w->guess.hash;
	w->memo_fp_sum = w->guess.fp_sum;
	w->memo.n_reads = w->guess.n_reads;
	w->memo.span = w->guess.span;
	w->memo.n_far = w->guess.n_far;
	w->memo.fp_used = w->guess.fp_used;
	if (i < STK_WALK_MEMO_READS)
		w->memo.reads[i & (STK_WALK_MEMO_READS - 1)] = w->guess.fp_read;
	w->memo.tail = 1;
	w->memo.tail_fp_from = i;
	w->memo.tail_fp_unknown = w->guess.fp_unknown;
	w->memo.tail_sp = w->guess.sp;
}

/* The first word of kept read i, read again now (the frame pointer a failed guess started from). false: unreadable. */
static __always_inline bool memo_read_again(struct stk_walk *w, u32 i, u64 *v)
{
	u16 r = w->memo.reads[i & (STK_WALK_MEMO_READS - 1)];
	u64 addr;

	if (r & STK_WALK_MEMO_FAR)
		addr = w->memo.far[r & (STK_WALK_MEMO_FARS - 1)];
	else
		addr = w->memo_key.sp + 8 * (r & (STK_WALK_MEMO_NEAR - 1));
	return bpf_probe_read_user(v, sizeof(*v), (const void *)addr) == 0;
}

/*
 * A kept walk that ended on a failed frame-pointer guess (memo_guess_failed)
 * holds when the guess, made again from the frame pointer there now, fails
 * the same way: a frame pointer that is no frame's (zero, unaligned, below
 * the stack pointer), or a frame record whose return address lies in no
 * mapping. Where it would lead somewhere (or stop otherwise), the thread is
 * walked again.
 */
static __always_inline bool memo_tail_holds(struct stk_walk *w)
{
	u64 fp, sp = w->memo.tail_sp, ra;
	u32 i = w->memo.tail_fp_from;

	if (!w->memo.tail || w->memo.tail_fp_unknown)
		return true;
	if (i == STK_WALK_FP_FROM_REGS)
		fp = w->fp;
	else if (i >= STK_WALK_MEMO_READS || !memo_read_again(w, i, &fp))
		return false;
	if (!fp || fp < sp || (fp & 7))
		return true;
	if (bpf_probe_read_user(w->memo_far, sizeof(w->memo_far), (const void *)fp))
		return false;
	ra = w->memo_far[1];
#ifdef __TARGET_ARCH_arm64
	ra &= USER_VA_MASK;
#endif
	if (fp + 16 <= sp || !ra)
		return false;
	/* the next frame's rule is found one byte back from its return address */
	return find_mapping(w, ra - 1) != 0;
}

/*
 * The window holding [off, off + len) of the stack above sp: the one read
 * last, or the next up to the highest word the walk read (one read for many
 * words: a read costs far more than its bytes), or only those bytes where
 * the longer read fails. false: unreadable.
 */
static __always_inline bool memo_window(struct stk_walk *w, u32 off, u32 len)
{
	u32 want;

	if (w->window_len && off >= w->window_at && off + len <= w->window_at + w->window_len)
		return true;
	want = w->memo.span > off ? w->memo.span - off : 0;
	if (want > STK_WALK_MEMO_WINDOW)
		want = STK_WALK_MEMO_WINDOW;
	if (want < len)
		want = len;
	w->window_at = off;
	w->window_len = 0;
	if (bpf_probe_read_user(w->memo_window, want & (2 * STK_WALK_MEMO_WINDOW - 1) & ~7u,
				(const void *)(w->memo_key.sp + off))) {
		want = len;
		if (bpf_probe_read_user(w->memo_window, len == 16 ? 16 : 8, (const void *)(w->memo_key.sp + off)))
			return false;
	}
	w->window_len = want & ~7u;
	return true;
}

/* bpf_loop callback: read i of the kept walk made again (from the window), into the hash. */
static long memo_reread(u32 i, void *ctx)
{
	struct stk_walk *w = scratch();
	struct stk_walk_memo_check *c;
	u32 r, off, len, at;
	u64 v0, v1;

	if (!w)
		return 1;
	c = &w->check;
	/* the verifier bounds the index by this mask: keep the compiler from folding it into a compare */
	asm volatile("" : "+r"(i));
	r = w->memo.reads[i & (STK_WALK_MEMO_READS - 1)];
	len = (r & STK_WALK_MEMO_WIDE) ? 16 : 8;
	if (r & STK_WALK_MEMO_FAR) {
		if (bpf_probe_read_user(w->memo_far, len == 16 ? 16 : 8,
					(const void *)w->memo.far[r & (STK_WALK_MEMO_FARS - 1)])) {
			c->changed = 1;
			return 1;
		}
		v0 = w->memo_far[0];
		v1 = w->memo_far[1];
	} else {
		off = 8 * (r & (STK_WALK_MEMO_NEAR - 1));
		if (!memo_window(w, off, len)) {
			c->changed = 1;
			return 1;
		}
		at = (off - w->window_at) / 8;
		v0 = w->memo_window[at & (STK_WALK_MEMO_WINDOW / 8 - 1)];
		v1 = w->memo_window[(at + 1) & (STK_WALK_MEMO_WINDOW / 8 - 1)];
	}
	/* a saved frame pointer counts only where the walk used it (memo_fp_use) */
	if (!(r & STK_WALK_MEMO_FP))
		c->hash = mix(c->hash, v0);
	else if (r & STK_WALK_MEMO_FP_USED)
		c->fp_sum += memo_fp_part(v0, i);
	if (len == 16)
		c->hash = mix(c->hash, v1);
	return 0;
}

/*
 * The thread's kept walk stands in for this one (w->reused: its chain) when
 * it started from the same registers in the same tables and every word it
 * read holds the same value now: the same inputs walk to the same chain.
 */
static __noinline bool memo_reuse(struct stk_walk *w, const struct stk_unwind_proc *p)
{
	struct stk_walk_memo *m;
	struct stk_walk_memo_check *c = &w->check;

	w->memo_key.tid = w->tid;
	w->memo_key.pad = 0;
	w->memo_key.pc = w->pc;
	w->memo_key.sp = w->sp;
	m = bpf_map_lookup_elem(&unwind_memo, &w->memo_key);
	/* the frame pointer it started from matters only where the walk used it */
	if (!m || (m->fp_used && m->fp != w->fp) || m->lr != w->lr || m->tgid != w->tgid || m->gen != p->gen ||
	    m->max != w->max)
		return false;
	w->memo = *m;
	c->hash = MEMO_SEED;
	c->fp_sum = 0;
	c->changed = 0;
	w->window_len = 0;
	bpf_loop(w->memo.n_reads, memo_reread, NULL, 0);
	if (c->changed || mix(c->hash, c->fp_sum) != w->memo.hash || !memo_tail_holds(w)) {
		ustat(STK_USTAT_MEMO_CHANGED);
		return false;
	}
	w->reused = w->memo.chain;
	ustat(STK_USTAT_MEMO_HITS);
	return true;
}

/* The record of this walk begun (memo_reuse set its key): its inputs; memo_note adds each read. */
static __always_inline void memo_begin(struct stk_walk *w, const struct stk_unwind_proc *p)
{
	w->memo.fp = w->fp;
	w->memo.lr = w->lr;
	w->memo.tgid = w->tgid;
	w->memo.gen = p->gen;
	w->memo.max = w->max;
	w->memo.n_reads = 0;
	w->memo.span = 0;
	w->memo.n_far = 0;
	w->memo.hash = MEMO_SEED;
	w->memo.fp_used = 0;
	w->memo.tail = 0;
	w->memo.tail_fp_from = 0;
	w->memo.tail_fp_unknown = 0;
	w->memo.tail_sp = 0;
	w->memo_fp_sum = 0;
}



/*
 * Keeps the walk just made for its thread and registers, under its chain's id, when
 * it can be checked again (every read recorded, a whole chain): the next
 * switch-out at the same place re-reads its words instead of walking.
 */
__noinline int stk_unwind_memo_keep(u64 chain)
{
	struct stk_walk *w = scratch();

	if (!w || !w->memo_keep || !chain || w->user.stop == STK_STOP_READ)
		return 0;
	w->memo.chain = chain;
	/* the used frame pointers' part joins the hash last, as the check adds it */
	w->memo.hash = mix(w->memo.hash, w->memo_fp_sum);
	bpf_map_update_elem(&unwind_memo, &w->memo_key, &w->memo, BPF_ANY);
	return 0;
}

#endif
