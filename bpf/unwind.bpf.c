// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel CFI unwinder (bpf/unwind_types.h says what the tables hold):
 * the maps user space fills (core/unwind/), the walk of the current task's
 * user stack over them, and the chain store every applet counts under.
 *
 * Where the native walk crosses an interpreter's eval loop (a process with
 * an entry in unwind_runtimes, placed by user space: core/runtime/), the
 * interpreted frames that loop was running take the eval frame's place in
 * the chain, read from the interpreter's own frame chain (each thread's
 * current frame from its state in unwind_rt_threads, then each frame's
 * previous one, a run ending where the layout says), the native frame that
 * ran a run found by the run's mark on its stack: bpf/runtime_types.h.
 *
 * Needs bpf_loop (5.17): the walk is one callback per frame, so the
 * verifier checks one frame, whatever the depth. Kernels without it take the
 * next rung (the stack copy unwound in user space); core/unwind/unwind_plan.c
 * decides before anything loads.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "unwind_types.h"
#include "uretprobes.h"

#define STK_UNWIND_MAPS_HERE
#include "unwind_maps.h"

#define HASH_MUL 0x9e3779b97f4a7c15ULL
/* Code addresses are below 2^48 on both architectures; arm64 signs return addresses above. */
#define USER_VA_MASK 0x0000ffffffffffffULL

static __always_inline void ustat(u32 slot)
{
	u64 *v = bpf_map_lookup_elem(&unwind_stats, &slot);

	if (v)
		(*v)++;
}

static __always_inline void ustat_add(u32 slot, u64 n)
{
	u64 *v = bpf_map_lookup_elem(&unwind_stats, &slot);

	if (v)
		*v += n;
}

static __always_inline struct stk_walk *scratch(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_scratch, &zero);
}

static __always_inline int stop(struct stk_walk *w, u32 why)
{
	w->user.stop = why;
	w->done = 1;
	return 1;
}

/* The mapping holding pc among the process's (binary search), into w->map. 0, or -1: none. */
static __always_inline int find_mapping(struct stk_walk *w, u64 pc)
{
	u32 lo = 0, hi = w->n_maps;

	for (int i = 0; i < 11; i++) { /* 2^10 > STK_UNWIND_PROC_MAPS_MAX */
		u32 mid, idx;
		struct stk_unwind_mapping *m;

		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		idx = w->first_map + mid;
		m = bpf_map_lookup_elem(&unwind_mappings, &idx);
		if (!m)
			return -1;
		if (pc < m->start) {
			hi = mid;
		} else if (pc >= m->end) {
			lo = mid + 1;
		} else {
			w->map = *m;
			w->have_map = 1;
			return 0;
		}
	}
	return -1;
}

/* The row covering pc in w->map: the page index narrows it to a few rows, searched in halves. */
static __always_inline struct stk_cfi_row *find_row(struct stk_walk *w, u64 pc)
{
	u64 rel = pc - w->map.base;
	u32 page, idx, lo, hi, *p;

	if (pc < w->map.base || rel >> 32)
		return NULL;
	page = (u32)(rel >> STK_UNWIND_PAGE_SHIFT);
	if (page >= w->map.n_pages)
		return NULL;
	idx = w->map.first_page + page;
	if (!(p = bpf_map_lookup_elem(&unwind_pages, &idx)))
		return NULL;
	lo = *p;
	idx++;
	if (!(p = bpf_map_lookup_elem(&unwind_pages, &idx)))
		return NULL;
	hi = *p + 1; /* the row covering the next page's start is the last candidate */
	/* rows[lo].pc <= rel < rows[hi].pc: find the last row starting at or before rel */
	for (int i = 0; i < 14; i++) { /* a page holds at most 4096 rows */
		struct stk_cfi_row *r;
		u32 mid;

		if (hi - lo <= 1)
			break;
		mid = lo + (hi - lo) / 2;
		idx = w->map.first_row + mid;
		if (!(r = bpf_map_lookup_elem(&unwind_rows, &idx)))
			return NULL;
		if (r->pc <= (u32)rel)
			lo = mid;
		else
			hi = mid;
	}
	idx = w->map.first_row + lo;
	return bpf_map_lookup_elem(&unwind_rows, &idx);
}

#include "unwind_memo.h"
#include "kernel_memo.h"

/* A word at addr into dst; fp: a saved frame pointer, the walk's frame pointer from here. */
static __always_inline int read_word(struct stk_walk *w, u64 *dst, u64 addr, bool fp)
{
	if (bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr))
		return -1;
	memo_note(w, addr, *dst, 0, false, fp);
	return 0;
}

/* Two words at addr (a frame record, or a saved frame pointer and return address) into pair. */
static __always_inline int read_pair(struct stk_walk *w, u64 pair[2], u64 addr)
{
	if (bpf_probe_read_user(pair, 2 * sizeof(u64), (const void *)addr))
		return -1;
	memo_note(w, addr, pair[0], pair[1], true, true);
	return 0;
}

/* Moves to the caller: sp, fp and pc; 1 when the chain ends here. */
static __always_inline int to_caller(struct stk_walk *w, u64 cfa, u64 ra)
{
#ifdef __TARGET_ARCH_arm64
	ra &= USER_VA_MASK; /* pointer authentication signs saved return addresses */
#endif
	if (cfa < w->sp || (cfa == w->sp && !w->leaf))
		return stop(w, STK_STOP_BACKWARDS);
	if (!ra)
		return stop(w, STK_STOP_ZERO_RA);
	w->sp = cfa;
	w->pc = ra;
	return 0;
}

/*
 * A frame without CFI: its frame record (x86_64: the saved rbp and the
 * return address above it; arm64: x29 and x30), as perf's walk takes it.
 */
static __always_inline int fp_step(struct stk_walk *w)
{
	u64 rec[2];

	memo_guess_begin(w);
	memo_fp_use(w);
	if (!w->fp || w->fp_unknown || w->fp < w->sp || (w->fp & 7)) {
		memo_guess_failed(w);
		return stop(w, STK_STOP_FP_END);
	}
	if (read_pair(w, rec, w->fp))
		return stop(w, STK_STOP_READ);
	w->via_fp = 1;
	if (to_caller(w, w->fp + 16, rec[1]))
		return 1;
	w->fp = rec[0];
#ifdef __TARGET_ARCH_arm64
	/* an arm64 frame record may sit anywhere in its frame: fp + 16 is not the caller's sp */
	w->sp_unknown = 1;
#endif
	return 0;
}

/* One row's rule: the CFA, then the return address and frame pointer saved relative to it. */
static __always_inline int cfa_step(struct stk_walk *w, const struct stk_cfi_row *r, u64 pc)
{
	u64 cfa, ra = 0, fp = w->fp;

	switch (r->cfa_how) {
	case STK_CFA_SP:
		cfa = w->sp + r->cfa_off;
		break;
	case STK_CFA_FP:
		if (w->fp_unknown)
			return stop(w, STK_STOP_FP_UNKNOWN);
		memo_fp_use(w);
		cfa = w->fp + r->cfa_off;
		break;
	case STK_CFA_DEREF_FP:
		if (w->fp_unknown)
			return stop(w, STK_STOP_FP_UNKNOWN);
		memo_fp_use(w);
		if (read_word(w, &cfa, w->fp + r->cfa_off, false))
			return stop(w, STK_STOP_READ);
		break;
	case STK_CFA_PLT:
		cfa = w->sp + 8 + ((pc & 15) >= (u64)r->cfa_off ? 8 : 0);
		break;
	default:
		return stop(w, STK_STOP_CFA_SHAPE);
	}
	/* the usual prologue saved the frame pointer just below the return address: one read for both */
	if (r->ra_how == STK_REG_AT_CFA && r->fp_how == STK_REG_AT_CFA && r->fp_off == r->ra_off - 8) {
		u64 pair[2];

		if (read_pair(w, pair, cfa + r->fp_off))
			return stop(w, STK_STOP_READ);
		if (to_caller(w, cfa, pair[1]))
			return 1;
		w->fp = pair[0];
		w->fp_unknown = 0;
		w->sp_unknown = 0;
		return 0;
	}
	switch (r->ra_how) {
	case STK_REG_AT_CFA:
		if (read_word(w, &ra, cfa + r->ra_off, false))
			return stop(w, STK_STOP_READ);
		break;
	case STK_REG_SAME: /* arm64: still in x30, which only the leaf's registers hold */
		if (!w->leaf || !w->lr)
			return stop(w, STK_STOP_LR_NOT_LEAF);
		ra = w->lr;
		break;
	default:
		return stop(w, STK_STOP_ROOT);
	}
	if (r->fp_how == STK_REG_AT_CFA) {
		if (read_word(w, &fp, cfa + r->fp_off, true))
			return stop(w, STK_STOP_READ);
		w->fp_unknown = 0;
	} else if (r->fp_how == STK_REG_UNDEF) {
		w->fp_unknown = 1;
	}
	if (to_caller(w, cfa, ra))
		return 1;
	w->fp = fp;
	w->sp_unknown = 0;
	return 0;
}

/* A return address that is the uretprobe trampoline: the real one, from the next return instance. */
static __always_inline void undo_uretprobe(struct stk_walk *w)
{
	w->pc = stk_uretprobe_next(&w->returns);
}

/* ---- interpreted frames (bpf/runtime_types.h) ---- */

/* A word of the interpreter's memory (a walk with interpreted frames is never kept: not noted). */
static __always_inline int rt_read(u64 *dst, u64 addr)
{
	return bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr) ? -1 : 0;
}

/* The interpreted frames end early: what is staged still takes its place where its run's mark is known. */
static __always_inline void rt_end(struct stk_walk *w, u32 why)
{
	w->rt_stop = why + 1;
	w->rt_frame = 0;
	w->rt_mode = STK_RT_MODE_NATIVE;
}

/* A pointer-sized field of the frame read (off: 8-aligned, inside the buffer): one aligned load. */
static __always_inline u64 rt_word(struct stk_walk *w, u32 off)
{
	return w->rt_buf[(off >> 3) & (STK_RT_FRAME_READ_MAX / 8 - 1)];
}

static __always_inline u8 rt_byte(struct stk_walk *w, u32 off)
{
	return ((u8 *)w->rt_buf)[off & (STK_RT_FRAME_READ_MAX - 1)];
}

/* The current thread's id in its own PID namespace, as the interpreter keeps it (the host's in the init one). */
static __always_inline u64 rt_task_ns_tid(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	int nr = 0;

	if (!pid || level > 32) /* the kernel nests 32 namespaces at most */
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)pid + bpf_core_field_offset(struct pid, numbers) +
						       level * bpf_core_type_size(struct upid));
	return nr > 0 ? (u64)nr : 0;
}

/* bpf_loop callback: one thread state of the list compared with the thread's id; 1 ends the search. */
static long rt_find_step(u32 i, void *ctx)
{
	struct stk_walk *w = scratch();
	u64 at;

	if (!w || !(at = w->rt_search))
		return 1;
	if (stk_rt_cycle(at, &w->rt_saved, &w->rt_power, &w->rt_steps)) {
		w->rt_search_stop = STK_RT_STOP_THREADS_CYCLE;
		return 1;
	}
	/* words read land in the scratch: the walk's frames share 512 bytes of stack */
	if (rt_read(&w->rt_frame, at + w->rt.ts_tid) || rt_read(&w->rt_search, at + w->rt.ts_next)) {
		w->rt_search = 0;
		return 1;
	}
	if (w->rt_frame == w->rt_ns_tid) {
		w->rt_found = at;
		return 1;
	}
	return 0;
}

/*
 * The thread's state looked for on the interpreter's list (new threads go
 * first), bounded and checked for a cycle: w->rt_found, or 0 with why.
 */
static __always_inline u32 rt_find_thread(struct stk_walk *w)
{
	w->rt_found = 0;
	w->rt_search = 0;
	w->rt_search_stop = STK_RT_STOP_NO_THREAD;
	if (!w->rt.interps || rt_read(&w->rt_search, w->rt.interps) || !w->rt_search ||
	    rt_read(&w->rt_search, w->rt_search + w->rt.is_threads) || !(w->rt_ns_tid = rt_task_ns_tid()))
		return STK_RT_STOP_NO_THREAD;
	w->rt_saved = 0;
	w->rt_power = 0;
	w->rt_steps = 0;
	bpf_loop(STK_RT_THREADS_MAX, rt_find_step, NULL, 0);
	/* the frames' own cycle check starts afresh */
	w->rt_saved = 0;
	w->rt_power = 0;
	w->rt_steps = 0;
	if (!w->rt_found && w->rt_search && w->rt_search_stop == STK_RT_STOP_NO_THREAD)
		return STK_RT_STOP_THREADS_LONG;
	return w->rt_search_stop;
}

/*
 * The thread's first run: its current frame from its state, as user space
 * placed it or the walk found it before (the tid may be another process's
 * by now, or another thread's in the interpreter's own ids: both are
 * checked), else looked for on the interpreter's list and kept; then its
 * frames are read (scanned) until the run's mark is known.
 */
static __always_inline void rt_begin(struct stk_walk *w, struct stk_rt_proc *rp)
{
	struct stk_rt_thread *t = bpf_map_lookup_elem(&unwind_rt_threads, &w->tid);
	u64 state = 0;
	u32 why;

	if (t && t->tgid == w->tgid) {
		if (!t->state)
			return; /* a thread that never ran the interpreter */
		if (!rt_read(&w->rt_frame, t->state + w->rt.ts_tid) && (u32)w->rt_frame == t->ns_tid)
			state = t->state;
	}
	if (!state) {
		why = rt_find_thread(w);
		if (!(state = w->rt_found)) {
			/* once until user space has looked (it rewrites the entry) */
			if (!rp->threads_asked) {
				rp->threads_asked = 1;
				w->ask_threads = 1;
			}
			rt_end(w, why);
			return;
		}
		struct stk_rt_thread found = { .state = state, .tgid = w->tgid, .ns_tid = (u32)w->rt_ns_tid };

		bpf_map_update_elem(&unwind_rt_threads, &w->tid, &found, BPF_ANY);
		ustat(STK_USTAT_RT_THREADS_FOUND);
	}
	if (rt_read(&w->rt_frame, state + w->rt.ts_frame)) {
		rt_end(w, STK_RT_STOP_THREAD);
		return;
	}
	if (w->rt.cf_frame != STK_RT_NONE) {
		/* 3.11: the run's _PyCFrame is its mark, known from its start */
		w->rt_cframe = w->rt_marker = w->rt_frame;
		if (w->rt_frame && rt_read(&w->rt_frame, w->rt_frame + w->rt.cf_frame)) {
			rt_end(w, STK_RT_STOP_THREAD);
			return;
		}
	}
	if (w->rt_frame)
		w->rt_mode = STK_RT_MODE_SCAN;
}

/*
 * One frame of the current run into the stage, or the run's end: its mark,
 * which the native frames are compared with, is known by then (3.11: the
 * run's C-level frame, known from its start; later: its own entry frame,
 * which ends it).
 */
static __always_inline int rt_scan(struct stk_walk *w)
{
	u32 size = w->rt.fr_read & 0xff, at, first;
	u64 frame = w->rt_frame, code, instr;
	u8 entry = 0;

	if (!frame) {
		w->rt_mode = STK_RT_MODE_NATIVE;
		return 0;
	}
	if (++w->rt_scanned > STK_RT_SCAN_MAX) {
		rt_end(w, STK_RT_STOP_LONG);
		return 0;
	}
	if (stk_rt_cycle(frame, &w->rt_saved, &w->rt_power, &w->rt_steps)) {
		rt_end(w, STK_RT_STOP_CYCLE);
		return 0;
	}
	if (size > STK_RT_FRAME_READ_MAX || size < 8)
		size = STK_RT_FRAME_READ_MAX;
	if (bpf_probe_read_user(w->rt_buf, size, (const void *)frame)) {
		rt_end(w, STK_RT_STOP_READ);
		return 0;
	}
	/* 3.14 keeps tag bits in a stack reference's low bits; code objects are 8-aligned in all */
	code = rt_word(w, w->rt.fr_code) & ~7ULL;
	instr = rt_word(w, w->rt.fr_instr);
	if (w->rt.fr_entry != STK_RT_NONE)
		entry = rt_byte(w, w->rt.fr_entry);
	w->rt_frame = rt_word(w, w->rt.fr_previous);
	if (w->rt.owner_boundary && rt_byte(w, w->rt.fr_owner) >= w->rt.owner_boundary) {
		w->rt_marker = frame;
		w->rt_mode = STK_RT_MODE_NATIVE;
		return 0;
	}
	if (!code || code > STK_RT_ADDR_MASK) {
		rt_end(w, STK_RT_STOP_BAD);
		return 0;
	}
	at = w->rt_staged;
	if (at + 2 <= STK_RT_STAGE) {
		first = STK_RT_NO_INSTR;
		if (instr >= code + w->rt.co_code && (instr - code - w->rt.co_code) / 2 < STK_RT_NO_INSTR)
			first = (u32)((instr - code - w->rt.co_code) / 2);
		w->rt_stage[at & (STK_RT_STAGE - 1)] = stk_rt_frame_word(w->rt.kind, code);
		/* the check: read straight into its word, the instruction put beside it */
		w->rt_stage[(at + 1) & (STK_RT_STAGE - 1)] = 0;
		rt_read(&w->rt_stage[(at + 1) & (STK_RT_STAGE - 1)], code + w->rt.co_check);
		w->rt_stage[(at + 1) & (STK_RT_STAGE - 1)] =
			stk_rt_aux_word(first, (u32)w->rt_stage[(at + 1) & (STK_RT_STAGE - 1)]);
		w->rt_staged = at + 2;
	}
	if (entry) {
		/* 3.11: the run ends; its mark was its _PyCFrame, the one before it is the next run's */
		w->rt_mode = STK_RT_MODE_NATIVE;
		if (!w->rt_cframe || rt_read(&w->rt_cframe, w->rt_cframe + w->rt.cf_previous))
			w->rt_cframe = 0;
	}
	return 0;
}

/* The staged run's next frame into the chain; at its end, the next run is scanned. 1 ends the loop. */
static __always_inline int rt_emit(struct stk_walk *w)
{
	u32 n = w->user.n, i = w->rt_emitted;

	if (i + 2 > w->rt_staged) {
		w->rt_staged = 0;
		w->rt_emitted = 0;
		/* the next run's mark: 3.11's next _PyCFrame, else known at its end */
		w->rt_marker = w->rt.cf_frame != STK_RT_NONE && w->rt_frame ? w->rt_cframe : 0;
		w->rt_mode = w->rt_frame ? STK_RT_MODE_SCAN : STK_RT_MODE_NATIVE;
		return 0;
	}
	if (n + 2 > w->max || n + 2 > STK_CHAIN_MAX)
		return stop(w, STK_STOP_DEPTH);
	w->user.pcs[n & (STK_CHAIN_MAX - 1)] = w->rt_stage[i & (STK_RT_STAGE - 1)];
	w->user.pcs[(n + 1) & (STK_CHAIN_MAX - 1)] = w->rt_stage[(i + 1) & (STK_RT_STAGE - 1)];
	w->user.n = n + 2;
	w->rt_emitted = i + 2;
	w->rt_frames++;
	return 0;
}

/* The native frame at pc (its index n recorded) stepped to its caller: 1 when the chain ends. */
static __always_inline int native_step(struct stk_walk *w, u64 pc, u32 n)
{
	struct stk_cfi_row *r;

	if (!w->have_map || pc < w->map.start || pc >= w->map.end) {
		if (find_mapping(w, pc)) {
			/* A frame-pointer guess that went nowhere is no frame; a leaf or a
			 * CFI-found caller outside every mapping means the mappings changed. */
			if (w->via_fp) {
				w->user.n = n;
				memo_guess_failed(w);
				return stop(w, STK_STOP_FP_END);
			}
			w->result = STK_WALK_STALE;
			return stop(w, STK_STOP_NO_MAPPING);
		}
	}
	w->via_fp = 0;
	if (w->map.flags & STK_MAP_NO_CFI)
		return fp_step(w);
	if (!w->map.n_rows) {
		w->result = STK_WALK_PARTIAL;
		return stop(w, STK_STOP_NONE);
	}
	r = find_row(w, pc);
	if (!r)
		return fp_step(w);
	switch (r->kind) {
	case STK_ROW_CFA:
		/* after a frame record, a CFA from the stack pointer would read the wrong slots */
		if (w->sp_unknown && r->cfa_how != STK_CFA_FP && r->cfa_how != STK_CFA_DEREF_FP)
			return fp_step(w);
		return cfa_step(w, r, pc);
	case STK_ROW_ROOT:
		return stop(w, STK_STOP_ROOT);
	case STK_ROW_NO_CFI:
		return fp_step(w);
	default:
		return stop(w, r->fp_how);
	}
}

/*
 * One step: a native frame recorded, its rule found, the walk moved to its
 * caller; where that frame's stack holds the current eval-loop run's mark,
 * the run's interpreted frames take its place (one per step), and the next
 * run is read (one frame per step). 1 ends the loop.
 */
static long walk_frame(u32 i, void *ctx)
{
	struct stk_walk *w = scratch();
	u64 pc;
	u32 n;
	int ret;

	if (!w || w->done)
		return 1;
	if (w->rt_mode == STK_RT_MODE_SCAN)
		return rt_scan(w);
	if (w->rt_mode == STK_RT_MODE_EMIT)
		return rt_emit(w);
	if (w->rt_tail) {
		/* past the native walk's end: each run read follows the last */
		if (w->rt_staged > w->rt_emitted) {
			w->rt_mode = STK_RT_MODE_EMIT;
			return 0;
		}
		w->done = 1;
		return 1;
	}
	n = w->user.n;
	if (n >= w->max || n >= STK_CHAIN_MAX)
		return stop(w, STK_STOP_DEPTH);
	if (w->native_n && w->returns && w->pc == w->trampoline)
		undo_uretprobe(w);
	w->user.pcs[n & (STK_CHAIN_MAX - 1)] = w->pc;
	w->user.n = n + 1;
	/* A return address points after its call: the call's rule is one byte back. */
	pc = w->native_n ? w->pc - 1 : w->pc;
	w->leaf = w->native_n == 0;
	w->native_n++;
	w->frame_sp = w->sp;
	ret = native_step(w, pc, n);
	/* this frame's stack holds the run's mark: it ran the staged frames, which take its place */
	if (!ret && w->rt_marker && w->rt_marker >= w->frame_sp && w->rt_marker < w->sp) {
		w->user.n = n;
		w->rt_mode = STK_RT_MODE_EMIT;
	}
	/*
	 * The native walk ended short of the runs still to place (the mark is
	 * above its last frame: no frame-pointer chain through JIT trampolines,
	 * a read that failed): they follow the chain, its stop reason kept.
	 */
	if (ret && w->rt_marker >= w->frame_sp && w->result == STK_WALK_DONE && w->user.stop != STK_STOP_ROOT &&
	    w->user.stop != STK_STOP_ZERO_RA && w->user.stop != STK_STOP_DEPTH) {
		w->done = 0;
		w->rt_tail = 1;
		w->rt_mode = STK_RT_MODE_EMIT;
		return 0;
	}
	return ret;
}

/*
 * Walks the current task's user stack from the registers the caller put in
 * scratch (pc, sp, fp, lr) into scratch's user chain: at most max frames.
 * Returns an enum stk_walk_result; STK_WALK_DONE with w->reused set when
 * the thread's kept walk stood in (memo_want: the registers are the task's
 * saved ones).
 */
__noinline int stk_unwind_walk(u32 tgid, u32 max)
{
	struct stk_walk *w = scratch();
	struct stk_unwind_proc *p;
	struct stk_rt_proc *rt;

	if (!w)
		return STK_WALK_NO_PROCESS;
	w->tgid = tgid;
	w->max = max;
	w->result = STK_WALK_DONE;
	w->done = 0;
	w->have_map = 0;
	w->fp_unknown = 0;
	w->via_fp = 0;
	w->sp_unknown = 0;
	w->ask_refresh = 0;
	w->user.n = 0;
	w->user.stop = STK_STOP_NONE;
	w->user.flags = 0;
	w->native_n = 0;
	w->leaf = 1;
	w->tid = (u32)bpf_get_current_pid_tgid();
	w->rt_mode = STK_RT_MODE_NATIVE;
	w->rt_stop = 0;
	w->rt_frames = 0;
	w->rt_frame = 0;
	w->rt_cframe = 0;
	w->rt_marker = 0;
	w->rt_staged = 0;
	w->rt_emitted = 0;
	w->rt_scanned = 0;
	w->rt_tail = 0;
	w->rt_saved = 0;
	w->rt_power = 0;
	w->rt_steps = 0;
	w->ask_threads = 0;
	w->returns = stk_uretprobe_first(&w->trampoline);
	p = bpf_map_lookup_elem(&unwind_procs, &tgid);
	if (!p) {
		ustat(STK_USTAT_NO_PROCESS);
		return STK_WALK_NO_PROCESS;
	}
	w->first_map = p->first_map;
	w->n_maps = p->n_maps;
	rt = bpf_map_lookup_elem(&unwind_runtimes, &tgid);
	w->has_rt = rt != NULL;
	w->reused = 0;
	w->fp_from = STK_WALK_FP_FROM_REGS;
	/* interpreted frames and pending uretprobes read more than the stack: such walks are not kept */
	w->memo_keep = w->memo_want && !rt && !w->returns;
	if (w->memo_keep) {
		if (memo_reuse(w, p))
			return STK_WALK_DONE;
		memo_begin(w, p);
	}
	if (rt) {
		w->rt = *rt;
		rt_begin(w, rt);
	}
	/* a native frame is one step; an interpreted one two (read, then placed), and a run one more */
	bpf_loop(3 * STK_CHAIN_MAX + STK_RT_SCAN_MAX, walk_frame, NULL, 0);
	if (w->result == STK_WALK_STALE) {
		ustat(STK_USTAT_STALE);
		/* once until user space has looked (it rewrites the entry) */
		if (!p->refresh_asked) {
			p->refresh_asked = 1;
			w->ask_refresh = 1; /* the caller sends the request: it has the context */
		}
		return STK_WALK_STALE;
	}
	if (w->result == STK_WALK_PARTIAL) {
		ustat(STK_USTAT_PARTIAL);
		return STK_WALK_PARTIAL;
	}
	ustat(STK_USTAT_WALKS);
	ustat_add(STK_USTAT_FRAMES, w->user.n);
	if (w->user.stop < STK_STOP_COUNT)
		ustat(STK_USTAT_STOP_FIRST + w->user.stop);
	if (w->rt_frames) {
		ustat(STK_USTAT_RT_WALKS);
		ustat_add(STK_USTAT_RT_FRAMES, w->rt_frames);
	}
	/* a run read whose native frame the walk never reached */
	if (!w->rt_stop && w->rt_staged > w->rt_emitted && w->user.stop != STK_STOP_DEPTH)
		w->rt_stop = STK_RT_STOP_UNPLACED + 1;
	if (w->rt_stop && w->rt_stop <= STK_RT_STOP_COUNT)
		ustat(STK_USTAT_RT_STOP_FIRST + w->rt_stop - 1);
	return STK_WALK_DONE;
}

/* One chunk of c into w->chunk (the chain's tail past n is zero: see clear_tail). */
static __always_inline void fill_chunk(struct stk_walk *w, const struct stk_chain *c, u32 chunk)
{
	u32 base = chunk * STK_CHAIN_CHUNK;

	w->chunk.n = c->n;
	w->chunk.stop = c->stop;
	w->chunk.flags = c->flags;
	w->chunk.pad = 0;
#pragma unroll
	for (int i = 0; i < STK_CHAIN_CHUNK; i++)
		w->chunk.pcs[i] = c->pcs[(base + i) & (STK_CHAIN_MAX - 1)];
}

static __always_inline bool chunk_equal(const struct stk_chain_chunk *a, const struct stk_chain_chunk *b)
{
	if (a->n != b->n || a->stop != b->stop || a->flags != b->flags)
		return false;
	for (int i = 0; i < STK_CHAIN_CHUNK; i++)
		if (a->pcs[i] != b->pcs[i])
			return false;
	return true;
}

static __always_inline u64 chain_hash(const struct stk_chain *c)
{
	u64 h = 0x243f6a8885a308d3ULL ^ ((u64)c->n << 16 | (u64)c->stop << 8 | c->flags);

	for (int i = 0; i < STK_CHAIN_MAX; i++) {
		if (i >= c->n)
			break;
		h = (h ^ c->pcs[i]) * HASH_MUL;
		h ^= h >> 29;
	}
	return h;
}

/* One intern: its chain, the id tried, what the chunk loop found. */
struct intern {
	u64 id;
	u32 kernel;
	u32 chunks;
	int found; /* compare: 1 all chunks equal, 0 another chain, -1 none stored; store: 0, or -1 full */
};

static __always_inline const struct stk_chain *chain_of(struct stk_walk *w, const struct intern *in)
{
	return in->kernel ? &w->kernel : &w->user;
}

/* bpf_loop callback: compares chunk k of the chain with the store's. */
static long compare_chunk(u32 k, void *ctx)
{
	struct intern *in = ctx;
	struct stk_walk *w = scratch();
	struct stk_chain_key key = { .id = in->id, .chunk = k };
	struct stk_chain_chunk *have;

	if (!w)
		return 1;
	have = bpf_map_lookup_elem(&unwind_chains, &key);
	if (!have) {
		in->found = k == 0 ? -1 : 0; /* a chain whose later chunks found no room: never matched */
		return 1;
	}
	fill_chunk(w, chain_of(w, in), k);
	if (!chunk_equal(have, &w->chunk)) {
		in->found = 0;
		return 1;
	}
	return 0;
}

/* bpf_loop callback: stores chunk chunks - 1 - i, so chunk 0 comes last: a chain is found only once whole. */
static long store_chunk(u32 i, void *ctx)
{
	struct intern *in = ctx;
	struct stk_walk *w = scratch();
	u32 k = in->chunks - 1 - i;
	struct stk_chain_key key = { .id = in->id, .chunk = k };

	if (!w || k >= STK_CHAIN_CHUNKS)
		return 1;
	fill_chunk(w, chain_of(w, in), k);
	if (bpf_map_update_elem(&unwind_chains, &key, &w->chunk, k ? BPF_ANY : BPF_NOEXIST)) {
		in->found = -1;
		return 1;
	}
	return 0;
}

/* bpf_loop callback: zeroes one slot of the chain's last chunk past its end (from in->found). */
static long clear_slot(u32 i, void *ctx)
{
	struct intern *in = ctx;
	struct stk_walk *w = scratch();
	struct stk_chain *c;

	if (!w)
		return 1;
	c = in->kernel ? &w->kernel : &w->user;
	c->pcs[((u32)in->found + i) & (STK_CHAIN_MAX - 1)] = 0;
	return 0;
}

/* The id of scratch's user (kernel: its kernel) chain, stored when new; 0 when no room. */
__noinline u64 stk_chain_intern(u32 kernel)
{
	struct stk_walk *w = scratch();
	struct intern in = { .kernel = kernel };
	u32 n;
	u64 h;

	if (!w)
		return 0;
	w->stored = 0;
	const struct stk_chain *c = chain_of(w, &in);
	n = c->n;
	if (n > STK_CHAIN_MAX)
		return 0;
	in.chunks = (n + STK_CHAIN_CHUNK - 1) / STK_CHAIN_CHUNK;
	if (!in.chunks)
		in.chunks = 1;
	/* chunks are compared and stored whole: what an earlier, longer chain left there goes */
	in.found = (int)n;
	bpf_loop(in.chunks * STK_CHAIN_CHUNK - n, clear_slot, &in, 0);
	h = chain_hash(c);
	/* a second id for the one chain in 2^64 that collides with another */
	for (int probe = 0; probe < 2; probe++) {
		in.id = (h + probe * HASH_MUL) | 1; /* never 0 */
		in.found = 1;
		bpf_loop(in.chunks, compare_chunk, &in, 0);
		if (in.found == 1)
			return in.id;
		if (in.found == 0) {
			ustat(STK_USTAT_CHAIN_PROBES);
			continue;
		}
		in.found = 0;
		bpf_loop(in.chunks, store_chunk, &in, 0);
		if (in.found == 0) {
			w->stored = 1;
			return in.id;
		}
		/* another CPU stored it (or another chain) meanwhile: look once more */
		in.found = 1;
		bpf_loop(in.chunks, compare_chunk, &in, 0);
		if (in.found == 1)
			return in.id;
		break;
	}
	ustat(STK_USTAT_CHAINS_FULL);
	return 0;
}

/* Tells user space that tgid's entry is gone (exec, exit); a lost message only delays a reload. */
static __always_inline void tell(void *ctx, u32 tgid, u32 kind)
{
	struct stk_unwind_request req = { .tgid = tgid, .kind = kind };

	if (bpf_perf_event_output(ctx, &unwind_requests, BPF_F_CURRENT_CPU, &req, sizeof(req)))
		ustat(STK_USTAT_REQUESTS_LOST);
}

/*
 * An exec replaces the process's mappings: its entry goes at once (a new
 * program at the old addresses must never be walked with the old rows), and
 * user space loads it again.
 */
SEC("raw_tp/sched_process_exec")
int stk_unwind_exec(struct bpf_raw_tracepoint_args *ctx)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	bpf_map_delete_elem(&unwind_runtimes, &tgid);
	if (bpf_map_delete_elem(&unwind_procs, &tgid) == 0)
		tell(ctx, tgid, STK_UNWIND_REQ_EXEC);
	return 0;
}

/* The last thread of a process exits: its entry and slots are freed (the pid may come back as another process). */
SEC("raw_tp/sched_process_exit")
int stk_unwind_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (BPF_CORE_READ(t, signal, live.counter) != 0)
		return 0;
	bpf_map_delete_elem(&unwind_runtimes, &tgid);
	if (bpf_map_delete_elem(&unwind_procs, &tgid) == 0)
		tell(ctx, tgid, STK_UNWIND_REQ_EXIT);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
