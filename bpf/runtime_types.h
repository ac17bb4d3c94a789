/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreted frames in a chain of addresses, shared by bpf/ (the kernel
 * walk, bpf/unwind.bpf.c) and user space (core/runtime/: the walk over a
 * stack copy or a snapshot, and naming). Where a native chain holds an
 * interpreter's eval loop, the frames that loop was running stand in its
 * place, each as two words: a frame word (tag, which runtime, the code
 * object's address) and an aux word (tag, the instruction, a check that
 * tells one code object at that address from a later one). Neither word is
 * a canonical address on x86_64 or arm64, nor one of pmp's frame names
 * (core/snapshot/frame_names.h, 0x5354...), so a chain mixes them freely.
 * Code objects are named in user space (core/runtime/runtime.h).
 *
 * The kernel walk reads the interpreter's structures with what user space
 * places per process (struct stk_rt_proc, the runtime's layout) and per
 * thread (struct stk_rt_thread: where its state is; a thread blocked off
 * CPU holds no GIL, so each finds its own).
 */
#ifndef STK_RUNTIME_TYPES_H
#define STK_RUNTIME_TYPES_H

#include <linux/types.h>

/* The runtimes (a frame word's kind). */
#define STK_RT_PYTHON 1

#define STK_RT_FRAME_TAG 0x7e00000000000000ULL
#define STK_RT_AUX_TAG 0x7d00000000000000ULL
#define STK_RT_TAG_MASK 0xff00000000000000ULL
#define STK_RT_KIND_SHIFT 48
#define STK_RT_ADDR_MASK 0x0000ffffffffffffULL
/* The aux word's instruction field: 24 bits, this value for "unknown" (before the first instruction). */
#define STK_RT_NO_INSTR 0xffffffu
/* An offset of struct stk_rt_proc that is not there. */
#define STK_RT_NONE 0xffff
/* Bytes of a frame read at once at most (struct stk_rt_proc.fr_read); pointer fields 8-aligned below it. */
#define STK_RT_FRAME_READ_MAX 128
/* Interpreted frames one walk reads at most (a run's are read to its end to find its mark). */
#define STK_RT_SCAN_MAX 1024
/* Thread states the kernel walk looks through at most for a thread it has none of. */
#define STK_RT_THREADS_MAX 4096

static inline __u64 stk_rt_frame_word(__u32 kind, __u64 code)
{
	return STK_RT_FRAME_TAG | ((__u64)(kind & 0xff) << STK_RT_KIND_SHIFT) | (code & STK_RT_ADDR_MASK);
}

static inline __u64 stk_rt_aux_word(__u32 instr, __u32 check)
{
	return STK_RT_AUX_TAG | ((__u64)(instr & 0xffffff) << 32) | check;
}

static inline int stk_rt_is_frame_word(__u64 w)
{
	return (w & STK_RT_TAG_MASK) == STK_RT_FRAME_TAG;
}

static inline int stk_rt_is_aux_word(__u64 w)
{
	return (w & STK_RT_TAG_MASK) == STK_RT_AUX_TAG;
}

/* Words of the chain entry starting with w (next: the word after it, if any): 2 for an interpreted frame. */
static inline unsigned stk_rt_entry_words(__u64 w, int has_next, __u64 next)
{
	return stk_rt_is_frame_word(w) && has_next && stk_rt_is_aux_word(next) ? 2 : 1;
}

/*
 * A chain of frames (or threads, or interpreters) checked for a cycle as it
 * is followed, in the kernel walk and in user space alike (Brent's): true
 * when at was seen before. saved, power, steps start at 0.
 */
static inline int stk_rt_cycle(__u64 at, __u64 *saved, __u32 *power, __u32 *steps)
{
	if (*saved == at)
		return 1;
	if (++*steps >= *power) {
		*saved = at;
		*power = *power ? *power * 2 : 2;
		*steps = 0;
	}
	return 0;
}

/*
 * unwind_runtimes (by tgid): a process's interpreter as the kernel walk
 * reads it. Offsets are in bytes, each inside what it is read from.
 *
 * Which native frame ran which frames: each run of the eval loop keeps a
 * structure on its own C stack (3.11: its _PyCFrame, which the thread
 * state points at, each pointing at the one before; from 3.12: the entry
 * frame that ends the run's frames), so the native frame whose stack,
 * from its stack pointer up to its caller's, holds that address is the
 * run's: no code address says it (compilers split the eval loop in parts
 * no symbol covers).
 */
struct stk_rt_proc {
	__u32 kind;                 /* STK_RT_PYTHON */
	__u32 threads_asked;        /* the walk met a thread it has no state of: user space asked to look */
	/* thread state: the current frame, or (cf_frame set) the C-level frame that holds it */
	__u16 ts_frame;
	__u16 cf_frame;             /* that C-level frame's current frame (STK_RT_NONE: ts_frame is the frame) */
	__u16 cf_previous;          /* that C-level frame's previous one (the run before) */
	__u16 ts_tid;               /* the thread's id as the interpreter keeps it (its PID namespace's) */
	__u16 fr_code;              /* frame: the code object (low 3 bits are tags: 3.14's stack references) */
	__u16 fr_previous;          /* frame: its caller's frame */
	__u16 fr_instr;             /* frame: a pointer into the code object's instructions */
	__u16 fr_owner;             /* frame: who owns it (a byte) */
	__u16 fr_entry;             /* frame: a byte set on the first frame an eval loop ran (STK_RT_NONE: none) */
	__u16 fr_read;              /* bytes of a frame read at once (every field above inside) */
	__u16 co_code;              /* code object: its first instruction */
	__u16 co_check;             /* code object: a pointer field that differs between code objects (line table) */
	__u8 owner_boundary;        /* an owner at or above it marks an eval loop's own entry frame (0: none) */
	__u8 pad;
	/*
	 * A thread the walk has no state of is looked for on the interpreters'
	 * first list (the newest interpreter's, the main one unless a process
	 * makes others; new threads go first): interps is where the runtime
	 * keeps that interpreter's address (0: not looked for in the kernel).
	 */
	__u16 is_threads;           /* interpreter: its first thread state */
	__u16 ts_next;              /* thread state: the next one */
	__u16 pad2;
	__u64 interps;
};

/*
 * unwind_rt_threads (by host tid, least recently used first out): where a
 * thread's interpreter state is, placed by user space or found by the walk.
 * An entry outlives its thread: the tgid and the state's own tid field,
 * checked on each use, tell a tid taken again.
 */
struct stk_rt_thread {
	__u64 state;  /* its thread state's address (0: a thread of the process with none: native code only) */
	__u32 tgid;   /* its process (the tid may be another process's by now) */
	__u32 ns_tid; /* its id as the interpreter keeps it */
};

/* Why a kernel walk's interpreted frames ended early (unwind_stats' slots after STK_USTAT_RT_STOP_FIRST). */
enum stk_rt_stop {
	STK_RT_STOP_NO_THREAD,  /* the thread's state is not on the list (yet): user space was asked */
	STK_RT_STOP_THREAD,     /* the thread state could not be read, or is another thread's */
	STK_RT_STOP_READ,       /* a frame could not be read */
	STK_RT_STOP_CYCLE,      /* the frames ran in a cycle */
	STK_RT_STOP_BAD,        /* a frame with no code object, or one past what a chain word holds */
	STK_RT_STOP_UNPLACED,   /* no native frame held a run's mark (the native walk ended first) */
	STK_RT_STOP_LONG,       /* a run's frames went on past what one walk reads */
	STK_RT_STOP_THREADS_CYCLE, /* looking for the thread's state: the list ran in a cycle (user space was asked) */
	STK_RT_STOP_THREADS_LONG,  /* looking for it: the list went on past STK_RT_THREADS_MAX (user space was asked) */
	STK_RT_STOP_COUNT,
};

#endif
