/*
 * Interpreter frames (bpf/runtime_types.h says how they stand in a chain):
 * each runtime one file behind core/runtime/runtime_class.h (python.c),
 * this file doing what is the same for all of them over the process table
 * (core/unwind/mapping.h): which file a process runs an interpreter from
 * (each file scanned once, when the symbolizer learns it), the runtime's
 * state of the process kept in its entry, a thread's interpreted frames
 * read from its memory and spliced into a native chain in place of its
 * eval-loop frames (the copy path, pmp: the kernel walk does the same in
 * bpf/unwind.bpf.c), code objects named once per (process, address,
 * check) and kept for as long as the process entry (after the process
 * exits too), and what the kernel walk needs placed.
 *
 * Everything read from a process is untrusted: reads are bounded in bytes
 * and frames, chains checked for cycles, names escaped and cut
 * (core/runtime/python_text.h). Not thread-safe (the symbolizer's thread).
 */
#ifndef STK_RUNTIME_H
#define STK_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bpf/runtime_types.h"

struct stk_process;
struct stk_frame;
struct stk_runtime_file;
struct stk_runtime_proc;

/* What the ELF file on fd holds of a runtime (read with pread), or NULL: most files hold none. */
struct stk_runtime_file *stk_runtime_file_scan(int fd);
void stk_runtime_file_free(struct stk_runtime_file *f);

/*
 * p's runtime, found on first need from its mappings' files and its memory
 * (again when its mappings change), kept in p->runtime: NULL when p runs
 * none whose frames stk reads (stk_runtime_note says why, for -v).
 */
struct stk_runtime_proc *stk_runtime_of(struct stk_process *p);
/* What p runs ("python 3.11 in /usr/bin/python3.11", or why its frames are not read); NULL: no runtime seen. */
const char *stk_runtime_note(const struct stk_process *p);
void stk_runtime_proc_free(struct stk_runtime_proc *rp);

/*
 * The user-space walk: in chain (n words, leaf first, max room; sps: each
 * frame's stack pointer, as the native unwinder found it), each native
 * frame that ran one of p's eval-loop runs (its stack, up to its caller's
 * stack pointer, holds the run's mark: bpf/runtime_types.h) is replaced by
 * the interpreted frames the run was running, read from thread tid's
 * memory now. A chain that ended early (not whole: it did not reach its
 * thread's root) is followed by the interpreted frames of the runs above
 * its last frame, in order: those whose native frames it did not reach.
 * how (NULL, or one byte per word) moves with the words; interpreted words
 * get how_interp. Returns the new length. A thread with no interpreter
 * state, or a process with no runtime, keeps its chain.
 */
size_t stk_runtime_splice(struct stk_process *p, pid_t tid, uint64_t *chain, uint8_t *how, const uint64_t *sps,
			  size_t n, size_t max, bool whole, uint8_t how_interp);

/*
 * The interpreted frame of chain words word and aux (aux 0: none) into f:
 * its function's qualified name, its file and line, "[python]" as its
 * module; a code object that cannot be named (gone, reused) keeps symbol
 * "[python]". Strings live as long as p's entry.
 */
void stk_runtime_name(struct stk_process *p, uint64_t word, uint64_t aux, struct stk_frame *f);
/* The frame of word that cannot be named (no process to read): its runtime's "[python]". */
void stk_runtime_unnamed(uint64_t word, struct stk_frame *f);
/* Names the interpreted frames of chain (n words) now, while the process lives (the kernel walk's new chains). */
void stk_runtime_name_chain(struct stk_process *p, const uint64_t *chain, size_t n);

/* The kernel walk's layout of p's runtime (bpf/runtime_types.h). 0, or -1: none the kernel can walk. */
int stk_runtime_kernel_proc(struct stk_process *p, struct stk_rt_proc *out);
/*
 * The kernel walk's thread states brought up to date with p's threads now:
 * put(ctx, host tid, entry) for each new or moved one, drop(ctx, host tid)
 * for each gone (all of them when p runs no runtime any more). 0, or -1
 * when the threads could not be read (nothing changes then).
 */
int stk_runtime_kernel_threads(struct stk_process *p, void (*put)(void *ctx, uint32_t tid, const struct stk_rt_thread *t),
			       void (*drop)(void *ctx, uint32_t tid), void *ctx);
/* Every thread state placed for p dropped (it exited or exec'd). */
void stk_runtime_kernel_forget(struct stk_process *p, void (*drop)(void *ctx, uint32_t tid), void *ctx);

/* Distinct reasons a process's walks stopped early that -v counts apart (the reasons are static strings). */
#define STK_RT_STOP_REASONS 8

/* What the user-space walks and naming did in one process (-v). */
struct stk_runtime_stats {
	uint64_t walks;       /* threads walked in user space */
	uint64_t frames;      /* interpreted frames they found */
	uint64_t no_thread;   /* walks that found no state for their thread */
	uint64_t stopped;     /* walks that stopped early, counted by reason in stops[] */
	struct {
		const char *why;
		uint64_t n;
	} stops[STK_RT_STOP_REASONS];
	uint64_t named, unnamed; /* code objects named, and those that could not be */
	const char *last_unnamed;
};
void stk_runtime_get_stats(const struct stk_process *p, struct stk_runtime_stats *st);

/* The runtimes and versions whose frames stk reads, for `stk info`. */
const char *stk_runtime_versions(void);

#endif
