/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel CFI unwinder's tables, shared by bpf/ (the walk) and
 * core/unwind/ (which builds and loads them). User space turns each
 * executable file's CFI into rows (one per address range with the same rule
 * for the CFA, the return address and the frame pointer), keyed by file and
 * shared by every process that maps the file; per process, a sorted list of
 * its executable mappings points at those rows. The BPF walk finds a pc's
 * mapping, then its row, computes the caller's registers and goes on, as a
 * frame-pointer walk does; the chain it yields is interned in a hash map
 * under a 64-bit id (probed on collision, compared in full: two different
 * chains never share an id) and counted under that id.
 */
#ifndef STK_UNWIND_TYPES_H
#define STK_UNWIND_TYPES_H

#include <linux/types.h>
#include "user_regs.h"
#include "runtime_types.h"

/* Frames one chain holds at most (perf_event_max_stack's default is 127). */
#define STK_CHAIN_MAX 256
/* A process's executable mappings the walk searches (more: the rest take the copy path). */
#define STK_UNWIND_PROC_MAPS_MAX 512
/* Table pages: the page index covers a file's rows in 4 KiB steps. */
#define STK_UNWIND_PAGE_SHIFT 12

/* How a row computes the CFA (canonical frame address: the caller's stack pointer). */
enum stk_cfa_how {
	STK_CFA_SP,      /* sp + cfa_off */
	STK_CFA_FP,      /* fp + cfa_off */
	STK_CFA_DEREF_FP, /* *(fp + cfa_off): gcc's stack realignment (main with -mavx...) */
	STK_CFA_PLT,     /* x86_64 PLT: sp + 8, + 8 more when (pc & 15) >= cfa_off */
};

/* What a row is. */
enum stk_row_kind {
	STK_ROW_CFA,     /* a rule: CFA, return address and frame pointer as the fields say */
	STK_ROW_ROOT,    /* return address undefined: the outermost frame (_start, clone) */
	STK_ROW_NO_CFI,  /* a gap between functions with CFI: a frame-pointer step */
	STK_ROW_STOP,    /* a shape the walk does not take: ends the chain with stop */
};

/* Where the return address or the saved frame pointer is. */
enum stk_reg_how {
	STK_REG_SAME,    /* unchanged (fp), or still in the link register (arm64 ra, leaf only) */
	STK_REG_AT_CFA,  /* saved at cfa + off */
	STK_REG_UNDEF,   /* unknown from here on */
};

/* One row: from pc (relative to the mapping's base) to the next row's pc. */
struct stk_cfi_row {
	__u32 pc;
	__s32 cfa_off;
	__s16 ra_off;
	__s16 fp_off;
	__u8 kind;    /* enum stk_row_kind */
	__u8 cfa_how; /* enum stk_cfa_how */
	__u8 ra_how;  /* enum stk_reg_how */
	__u8 fp_how;  /* enum stk_reg_how; for STK_ROW_STOP: enum stk_walk_stop */
};

/* Mapping flags. */
#define STK_MAP_NO_CFI 1   /* no table (anonymous code, a file without CFI): frame-pointer steps */

/* One executable mapping of a process: [start, end), its rows and page index. */
struct stk_unwind_mapping {
	__u64 start, end;
	__u64 base;       /* runtime address of row pc 0 */
	__u32 first_row, n_rows;   /* in unwind_rows */
	__u32 first_page, n_pages; /* in unwind_pages: n_pages + 1 entries */
	__u32 flags;
	__u32 pad;
};

/* Process flags. */
#define STK_PROC_PARTIAL 1 /* some mappings have no room in the tables: their frames need the copy path */

/* unwind_procs value: the process's mappings, sorted by start, in unwind_mappings. */
struct stk_unwind_proc {
	__u32 first_map, n_maps;
	__u32 flags;
	__u32 refresh_asked; /* the walk met a pc in no mapping and asked user space to look again */
	__u32 gen;           /* a new value at every write: a kept walk holds only while it is the same */
	__u32 pad;
};

/* Why a chain ended (user chains; kernel chains say STK_STOP_KERNEL). */
enum stk_walk_stop {
	STK_STOP_NONE,
	STK_STOP_ROOT,        /* CFI says the return address is undefined: the thread's root */
	STK_STOP_ZERO_RA,     /* a return address of 0: the outermost frame */
	STK_STOP_DEPTH,       /* --perf-max-stack-depth reached */
	STK_STOP_READ,        /* the stack could not be read there (not mapped, not paged in) */
	STK_STOP_NO_MAPPING,  /* a pc in no executable mapping the tables know */
	STK_STOP_FP_END,      /* no CFI there, and the frame-pointer chain ended */
	STK_STOP_BACKWARDS,   /* the stack pointer went down: a corrupt or looping stack */
	STK_STOP_CFA_SHAPE,   /* the CFA is computed in a way the walk does not take */
	STK_STOP_RA_SHAPE,    /* the return address is kept in a way the walk does not take */
	STK_STOP_HOSTILE,     /* the CFI was refused (out-of-bounds registers or nesting) */
	STK_STOP_SIGNAL,      /* a signal frame */
	STK_STOP_LR_NOT_LEAF, /* the return address is in the link register, past the leaf */
	STK_STOP_FP_UNKNOWN,  /* the CFA is frame-pointer based, and the frame pointer is unknown */
	STK_STOP_NO_REGS,     /* no user registers (kernel thread, unreadable) */
	STK_STOP_KERNEL,      /* a kernel chain */
	STK_STOP_COUNT,
};

/* The result of a walk (stk_unwind_walk). */
enum stk_walk_result {
	STK_WALK_DONE,        /* the chain is complete as far as the tables go; stop says why it ended */
	STK_WALK_NO_PROCESS,  /* the process has no tables yet: take the copy path, announce it */
	STK_WALK_STALE,       /* a pc in no known mapping (dlopen, exec): copy path, refresh asked */
	STK_WALK_PARTIAL,     /* a mapping without room in the tables: copy path */
	STK_WALK_NO_USER,     /* no user stack at all (a kernel thread) */
	STK_WALK_NO_ROOM,     /* the chain store was full: copy path */
};

/*
 * A thread's walks, kept (unwind_memo, by tid, pc and sp) when they started
 * from the registers the thread saved on entering the kernel: a thread that
 * blocks again where it blocked before has the same registers, and its
 * chain is the same while every stack word the walk read still holds what
 * it held. So the next walk from there re-reads only those words (one read
 * each, no table lookups) and, when their hash is the same, counts under
 * the kept chain.
 */
#define STK_WALK_MEMO_READS 128    /* words a kept walk re-reads at most (a longer walk is not kept) */
#define STK_WALK_MEMO_WIDE 0x8000u /* a read's flag: 16 bytes (a saved frame pointer and return address) */
#define STK_WALK_MEMO_FAR 0x4000u  /* a read's flag: its address is in far[] (the rest of the read: its index) */
/*
 * A read's flag: its (first) word is a saved frame pointer, which code
 * built without frame pointers uses for data that changes from one block
 * to the next. Such a word counts only once the walk used it (a CFA from
 * the frame pointer, a frame record): then with FP_USED, into an
 * order-free sum, as the walk learns it only later; else not at all.
 */
#define STK_WALK_MEMO_FP 0x2000u
#define STK_WALK_MEMO_FP_USED 0x1000u
#define STK_WALK_MEMO_NEAR 0x1000u /* words above sp a read's offset reaches; farther reads go in far[] */
#define STK_WALK_MEMO_FARS 8       /* far reads a kept walk holds (a frame-pointer guess into another stack) */
#define STK_WALK_MEMO_WINDOW 4096  /* the check reads the stack in windows of this many bytes */
#define STK_WALK_FP_FROM_REGS 0xffffu /* stk_walk.fp_from: the registers the walk started from */
#define STK_WALK_FP_FROM_NONE 0xfffeu /* a value no read or register gave (nothing to note when used) */
struct stk_walk_memo_key {
	__u32 tid;
	__u32 pad;
	__u64 pc, sp;
};
struct stk_walk_memo {
	__u64 fp, lr;   /* the other registers the walk started from */
	__u64 chain;    /* the chain's id */
	__u64 hash;     /* of every word read, in order */
	__u32 tgid;
	__u32 gen;      /* the process's table generation (stk_unwind_proc.gen) */
	__u32 max;      /* frames kept at most */
	__u32 n_reads;
	__u32 span;     /* bytes from sp to the end of the highest near word read */
	__u32 n_far;
	__u32 fp_used;  /* the walk used the frame pointer it started from (fp must then be the same) */
	/*
	 * The walk ended on a frame-pointer guess that led nowhere (no CFI for the
	 * last frame: JIT code, and a frame pointer that is data there): the
	 * guess's reads are not kept, the check makes the guess again instead
	 * from the frame pointer it had (tail_fp_from: the read it came from, or
	 * the registers) and the sp there.
	 */
	__u32 tail;
	__u32 tail_fp_from;
	__u32 tail_fp_unknown;
	__u64 tail_sp;
	__u64 far[STK_WALK_MEMO_FARS]; /* addresses of reads below sp or out of a near offset's reach */
	__u16 reads[STK_WALK_MEMO_READS]; /* each read: its offset from sp in words (or FAR and an index),
					   * WIDE for 16 bytes */
};

/*
 * A thread's kernel chains, kept (unwind_kmemo, by tid and where on its
 * kernel stack the program runs) when taken at a switch-out: the kernel's
 * own unwinder finds each caller from the return address stored in a slot
 * of the stack, so a thread that blocks again through the same calls has
 * the same return addresses in the same slots. The chain is kept with the
 * offset of each return address's slot; the next switch-out at the same
 * depth reads those slots again (one read of the stack above the program)
 * and, when their hash is the same, counts under the kept chain instead of
 * unwinding and interning it anew. The program's own place on the stack is
 * part of the key: a chain that differs anywhere below a slot moves every
 * frame above it (a slot of another call site holds another return address).
 */
#define STK_KMEMO_SLOTS 64 /* return addresses a kept kernel chain checks (a longer chain is not kept) */
struct stk_kmemo_key {
	__u32 tid;
	__u32 pad;
	__u64 sp; /* where the program's frame is on the thread's kernel stack */
};
struct stk_kmemo {
	__u64 chain; /* the kernel chain's id */
	__u64 hash;  /* of the return addresses at their slots, in order */
	__u32 span;  /* bytes from sp to the end of the highest slot */
	__u32 n;     /* slots */
	__u16 slots[STK_KMEMO_SLOTS]; /* each frame's return address (after the leaf): its offset from sp in words */
};

/* Chain flags (part of the identity). */
#define STK_CHAIN_KERNEL 1

/* A chain as the walk builds it (in unwind_scratch). */
struct stk_chain {
	__u16 n;
	__u8 stop;  /* enum stk_walk_stop */
	__u8 flags;
	__u32 pad;
	__u64 pcs[STK_CHAIN_MAX]; /* leaf first */
};

/*
 * unwind_chains stores a chain in chunks of STK_CHAIN_CHUNK frames under
 * (id, 0), (id, 1), ...: memory follows the frames a chain has, not the most
 * it could have. Every chunk repeats the chain's header.
 */
#define STK_CHAIN_CHUNK 32
#define STK_CHAIN_CHUNKS (STK_CHAIN_MAX / STK_CHAIN_CHUNK)
struct stk_chain_key {
	__u64 id;    /* never 0: 0 means "no chain" in count keys */
	__u32 chunk;
	__u32 pad;
};
struct stk_chain_chunk {
	__u16 n;    /* frames of the whole chain */
	__u8 stop;
	__u8 flags;
	__u32 pad;
	__u64 pcs[STK_CHAIN_CHUNK];
};

/* Requests from the walk to user space (unwind_requests). */
enum stk_unwind_request_kind {
	STK_UNWIND_REQ_REFRESH = 1, /* reread the process's mappings: a pc fell outside them */
	STK_UNWIND_REQ_EXEC,        /* the process exec'd: its entry is gone, load it again */
	STK_UNWIND_REQ_EXIT,        /* the process is gone: its slots are free */
	STK_UNWIND_REQ_THREADS,     /* a thread ran its interpreter with no state placed: read its threads again */
	STK_UNWIND_REQ_NAMES,       /* a new chain (arg: its id) has interpreted frames: name them while the process lives */
};
struct stk_unwind_request {
	__u32 tgid;
	__u32 kind;
	__u64 arg;
};

/* What the walk's next step does with interpreted frames (stk_walk.rt_mode). */
enum stk_rt_mode {
	STK_RT_MODE_NATIVE, /* a native frame */
	STK_RT_MODE_SCAN,   /* the next frame of the current eval-loop run, read into the stage */
	STK_RT_MODE_EMIT,   /* the staged run's next frame into the chain, in place of the native frame that ran it */
};
/* The walk's buffer for a frame (bpf/runtime_types.h's STK_RT_FRAME_READ_MAX bytes). */
#define STK_RT_FRAME_BUF (STK_RT_FRAME_READ_MAX + 8)
/* Words of one run staged (two a frame). */
#define STK_RT_STAGE 256

/* The walk's state, one per CPU (unwind_scratch). */
struct stk_walk {
	__u64 pc, sp, fp, lr;
	__u64 hash;
	__u32 tgid;
	__u32 max;         /* frames to keep */
	__u32 result;      /* enum stk_walk_result */
	__u32 done;
	/* the mapping of the last pc, cached: callers often share their callee's file */
	struct stk_unwind_mapping map;
	__u32 have_map;
	__u32 first_map, n_maps;
	__u32 fp_unknown;  /* the frame pointer's value is not known (CFI left it undefined) */
	__u32 via_fp;      /* the last caller came from a frame-pointer step (a guess) */
	__u32 sp_unknown;  /* arm64: a frame record gave the last caller, whose stack pointer it does not say */
	__u32 ask_refresh; /* the walk wants user space to reread the process's mappings */
	__u64 trampoline;  /* the uretprobe trampoline's address, when a uretprobe is pending */
	__u64 returns;     /* the next pending uretprobe's struct return_instance (kernel pointer), or 0 */
	/* the task's saved user registers as the kernel keeps them (arm64's user_pt_regs is 34 words,
	 * x86's pt_regs 21): read here, not on the BPF stack, whose 512 bytes the calls below share */
	__u64 task_regs[34];
	/* interpreted frames (bpf/runtime_types.h): the process's runtime, and where the walk is in its frames */
	struct stk_rt_proc rt;
	__u32 has_rt;
	__u32 rt_mode;     /* enum stk_rt_mode: what the next step does */
	__u32 rt_stop;     /* enum stk_rt_stop + 1 when its frames ended early, else 0 */
	__u32 rt_frames;   /* interpreted frames kept */
	__u32 ask_threads; /* the walk wants user space to read the process's threads again */
	__u32 tid;
	__u32 native_n;    /* native frames walked so far (0: the next is the leaf) */
	__u32 leaf;        /* the native frame being stepped past is the leaf */
	__u32 stored;      /* stk_chain_intern stored the chain: it is new */
	__u32 memo_want;   /* the caller's registers are the task's saved ones: a kept walk may stand in */
	__u32 memo_keep;   /* this walk can be kept: every word it read is in memo.reads */
	__u64 reused;      /* the chain of a kept walk whose words all held (0: walked) */
	__u32 fp_from;     /* the read the frame pointer's value came from (STK_WALK_FP_FROM_REGS: the registers) */
	__u32 fp_from_pad;
	__u64 memo_fp_sum; /* the used frame pointers' part of the kept walk's hash (order-free) */
	struct stk_walk_guess { /* the record as it was before the last frame-pointer guess (memo_guess_begin) */
		__u64 hash, fp_sum, sp;
		__u32 n_reads, span, n_far, fp_used, fp_from, fp_unknown;
		__u16 fp_read; /* the flags of the read fp came from */
		__u16 pad[3];
	} guess;
	struct stk_walk_memo_key memo_key; /* the thread and the registers the walk starts from */
	struct stk_walk_memo memo; /* the walk being recorded, or the kept one being checked */
	struct stk_kmemo_key kmemo_key; /* the thread and the program's place on its kernel stack */
	struct stk_kmemo kmemo;    /* a kernel chain being kept, or the kept one being checked */
	__u32 kmemo_at, kmemo_found; /* the scan for its slots: the next frame, and frames found */
	__u64 memo_window[STK_WALK_MEMO_WINDOW / 8]; /* the stack from sp + window_at, as the check read it */
	__u64 memo_far[2]; /* a far read, as the check read it (and the frame record memo_tail_holds reads) */
	__u32 window_at, window_len;
	/* the check's running sums, here rather than on the program's stack: the walk's frame
	 * stays small (the verifier adds each frame of a call chain against its 512-byte limit) */
	struct stk_walk_memo_check {
		__u64 hash;
		__u64 fp_sum;  /* the used frame pointers' part */
		__u32 changed; /* a word could not be read */
		__u32 pad;
	} check;
	__u32 rt_staged;   /* words of the current run staged */
	__u32 rt_emitted;  /* of those, put in the chain */
	__u32 rt_scanned;  /* frames read this walk */
	__u32 rt_power, rt_steps;
	__u32 rt_tail;     /* the native walk ended early: the runs left follow it */
	__u64 rt_frame;    /* the next interpreted frame to read (0: none) */
	__u64 rt_cframe;   /* 3.11: the current run's C-level frame (its mark) */
	__u64 rt_marker;   /* the current run's mark on its native frame's stack (0: not known yet) */
	__u64 rt_saved;    /* cycle check (Brent's): a frame seen, compared with each next one */
	__u64 frame_sp;    /* the stack pointer of the native frame being stepped past */
	__u64 rt_search;   /* looking for the thread's state: the next one on the list (0: the end) */
	__u64 rt_found;    /* the thread's state found there (0: none) */
	__u64 rt_ns_tid;   /* the thread's id as the interpreter keeps it (its PID namespace's) */
	__u32 rt_search_stop; /* enum stk_rt_stop: why the search ended without it */
	__u32 rt_search_pad;
	__u64 rt_buf[STK_RT_FRAME_BUF / 8]; /* a frame as read (words: its pointers are 8-aligned) */
	__u64 rt_stage[STK_RT_STAGE];  /* the current run's words, until its native frame is found */
	struct stk_chain user;
	struct stk_chain kernel;
	struct stk_chain_chunk chunk; /* a chunk being stored or compared */
};

/* Per-CPU statistics of the walk (unwind_stats, PERCPU_ARRAY). */
enum stk_unwind_stat {
	STK_USTAT_WALKS,        /* user chains walked in the kernel */
	STK_USTAT_FRAMES,       /* frames they yielded */
	STK_USTAT_NO_PROCESS,   /* samples of processes without tables (copy path) */
	STK_USTAT_STALE,        /* samples with a pc outside the known mappings (copy path) */
	STK_USTAT_PARTIAL,      /* samples in mappings without table room (copy path) */
	STK_USTAT_CHAINS_FULL,  /* chains not kept: the chain map was full */
	STK_USTAT_CHAIN_PROBES, /* chain ids taken past their first choice (hash collisions) */
	STK_USTAT_REQUESTS_LOST,
	STK_USTAT_MEMO_HITS,    /* walks that reused the thread's last one (its words unchanged) */
	STK_USTAT_MEMO_CHANGED, /* kept walks whose words changed (walked again) */
	STK_USTAT_KMEMO_HITS,   /* kernel chains that reused the thread's kept one (its return addresses unchanged) */
	STK_USTAT_KMEMO_CHANGED, /* kept kernel chains whose return addresses changed (taken again) */
	STK_USTAT_STOP_FIRST,   /* + enum stk_walk_stop: how chains ended */
	STK_USTAT_RT_WALKS = STK_USTAT_STOP_FIRST + STK_STOP_COUNT, /* walks that kept interpreted frames */
	STK_USTAT_RT_FRAMES,    /* interpreted frames they kept */
	STK_USTAT_RT_THREADS_FOUND, /* thread states the walk found on the interpreter's list (then kept) */
	STK_USTAT_RT_STOP_FIRST, /* + enum stk_rt_stop: interpreted frames that ended early */
	STK_USTAT_COUNT = STK_USTAT_RT_STOP_FIRST + STK_RT_STOP_COUNT,
};

#endif
