/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's kernel chains, kept (struct stk_kmemo in bpf/unwind_types.h):
 * after a chain is taken and interned, the slot of each of its return
 * addresses is found on the stack above the program; the next switch-out
 * at the same place reads those slots again and, unchanged, counts under
 * the kept chain without unwinding. Part of bpf/unwind.bpf.c (its scratch,
 * stats and hash; the window the user memo reads is free by then).
 */
#ifndef STK_KERNEL_MEMO_H
#define STK_KERNEL_MEMO_H

/* A kernel stack is at least this large, and aligned to it: reads above sp stop at its end. */
#define KMEMO_STACK_SIZE 16384u
#define KMEMO_WORDS (STK_WALK_MEMO_WINDOW / 8)

/*
 * A return address as the chain has it: arm64 may sign the ones it stores
 * (pointer authentication) in the bits above the address, which the
 * unwinder strips; kernel addresses have them all set.
 */
static __always_inline u64 kmemo_ret(u64 v)
{
#ifdef __TARGET_ARCH_arm64
	return v | 0xffff000000000000ULL;
#else
	return v;
#endif
}

/* The stack from sp up to len bytes into the window (len: at most the window). false: unreadable. */
static __always_inline bool kmemo_read(struct stk_walk *w, u32 len)
{
	if (len < 8 || len > STK_WALK_MEMO_WINDOW)
		return false;
	return bpf_probe_read_kernel(w->memo_window, len, (const void *)w->kmemo_key.sp) == 0;
}

/* bpf_loop callback: slot i of the kept chain read again, into the hash. */
static long kmemo_reread(u32 i, void *ctx)
{
	struct stk_walk *w = scratch();
	u64 *hash = ctx;
	u32 at;

	if (!w)
		return 1;
	asm volatile("" : "+r"(i));
	at = w->kmemo.slots[i & (STK_KMEMO_SLOTS - 1)];
	*hash = mix(*hash, kmemo_ret(w->memo_window[at & (KMEMO_WORDS - 1)]));
	return 0;
}

/*
 * The kept kernel chain of thread tid, the program running at sp
 * (w->kmemo_key.sp, set by the caller), when every return address it was
 * taken with is still in its slot; 0 when there is none or one changed.
 */
__noinline u64 stk_kernel_chain_kept(u32 tid)
{
	struct stk_walk *w = scratch();
	struct stk_kmemo *m;
	u64 hash = MEMO_SEED;

	if (!w)
		return 0;
	w->kmemo_key.tid = tid;
	w->kmemo_key.pad = 0;
	m = bpf_map_lookup_elem(&unwind_kmemo, &w->kmemo_key);
	if (!m)
		return 0;
	w->kmemo = *m;
	if (w->kmemo.n > STK_KMEMO_SLOTS || !kmemo_read(w, w->kmemo.span))
		return 0;
	bpf_loop(w->kmemo.n, kmemo_reread, &hash, 0);
	if (hash != w->kmemo.hash) {
		ustat(STK_USTAT_KMEMO_CHANGED);
		return 0;
	}
	ustat(STK_USTAT_KMEMO_HITS);
	return w->kmemo.chain;
}

/*
 * bpf_loop callback: word j of the stack above sp, compared with the next
 * frame's return address; found, its offset is that frame's slot. 1 ends
 * the scan once every frame has one.
 */
static long kmemo_scan(u32 j, void *ctx)
{
	struct stk_walk *w = scratch();
	u32 at, found;
	u64 v;

	(void)ctx;
	if (!w)
		return 1;
	at = w->kmemo_at;
	found = w->kmemo_found;
	if (at >= w->kernel.n || found >= STK_KMEMO_SLOTS)
		return 1;
	asm volatile("" : "+r"(j));
	v = kmemo_ret(w->memo_window[j & (KMEMO_WORDS - 1)]);
	if (v != w->kernel.pcs[at & (STK_CHAIN_MAX - 1)])
		return 0;
	w->kmemo.slots[found & (STK_KMEMO_SLOTS - 1)] = (u16)j;
	w->kmemo.hash = mix(w->kmemo.hash, v);
	w->kmemo.span = (j + 1) * 8;
	w->kmemo_found = found + 1;
	w->kmemo_at = at + 1;
	return w->kmemo_at >= w->kernel.n;
}

/*
 * Keeps the kernel chain just taken (w->kernel, interned as chain) for
 * thread tid at sp (w->kmemo_key, as stk_kernel_chain_kept left it), when
 * the slot of every return address past the leaf is found above sp: the
 * leaf is the program's own call (the same every time), every other frame
 * a caller whose return address its callee's call stored. base: the
 * thread's kernel stack (task->stack), where the scan must end.
 */
__noinline int stk_kernel_chain_keep(u64 chain, u64 base)
{
	struct stk_walk *w = scratch();
	u64 sp, end;
	u32 n, len;

	if (!w || !chain)
		return 0;
	n = w->kernel.n;
	sp = w->kmemo_key.sp;
	if (n < 2 || n - 1 > STK_KMEMO_SLOTS || !base)
		return 0;
	/* the words above sp up to the stack's end (or the window's) */
	end = base + KMEMO_STACK_SIZE;
	if (sp < base || sp >= end)
		return 0;
	len = end - sp > STK_WALK_MEMO_WINDOW ? STK_WALK_MEMO_WINDOW : (u32)(end - sp);
	len &= ~7u;
	if (!kmemo_read(w, len))
		return 0;
	w->kmemo.chain = chain;
	w->kmemo.hash = MEMO_SEED;
	w->kmemo.span = 0;
	w->kmemo_at = 1;
	w->kmemo_found = 0;
	bpf_loop(len / 8, kmemo_scan, NULL, 0);
	if (w->kmemo_at < n)
		return 0; /* a return address not on this part of the stack (an interrupt's, a deeper chain) */
	w->kmemo.n = w->kmemo_found;
	bpf_map_update_elem(&unwind_kmemo, &w->kmemo_key, &w->kmemo, BPF_ANY);
	return 0;
}

#endif
