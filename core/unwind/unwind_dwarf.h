/*
 * DWARF unwinding of a captured user stack (registers + a copy of the stack
 * from the stack pointer) with elfutils' libdwfl: CFI from .eh_frame and
 * .debug_frame, the frame-pointer chain where a module has none. Processes
 * and their modules come from the caller's process table (struct
 * stk_unwind_source: the symbolizer's in stk, learned when a process was
 * first seen, so processes that exited still unwind), which also keeps the
 * unwinder's libdwfl session in each process's entry: one table of
 * processes, not two. A session lives as long as the mappings it was made
 * from (their generation): CFI is parsed once per mapping set.
 * libdw runs no CFI the module's guard refuses (core/unwind/cfi_guard.h: a
 * user's program could make one lookup cost minutes and gigabytes), and a
 * sample's unwinding stops after STK_UNWIND_MAX_SAMPLE_MS of CPU (walked
 * again up to STK_UNWIND_RETRIES times); either ends the chain with the reason. Not thread-safe.
 */
#ifndef STK_UNWIND_DWARF_H
#define STK_UNWIND_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/unwind/mapping.h"

/*
 * CPU time one sample's unwinding may take (its process's first sample also
 * reads the modules' CFI): ordinary chains take tens of microseconds, and
 * 10 to 20 ms in the arm64 guests of the kernel matrix (emulated, two
 * vCPUs on one host thread), which 10 ms cut short.
 */
#define STK_UNWIND_MAX_SAMPLE_MS 50
/*
 * Walks again after one ran out of that budget, while each gets further
 * than the one before: what libdw learned of the CFI stays, so a chain slow
 * only the first time gets through, and one slow every time costs two budgets.
 */
#define STK_UNWIND_RETRIES 4

struct stk_unwind_result;

/*
 * The process table the unwinder works from (core/unwind/mapping.h). A
 * process's modules are its file mappings with a kept ELF, gone ones
 * aside; each file's CFI guard is scanned when a module of it is first
 * reported (stk_file_cfi_guard).
 */
struct stk_unwind_source {
	void *table;
	/* pid's entry, learned on first sight; NULL when pid is unknown and cannot be learned. */
	struct stk_process *(*process)(void *table, pid_t pid);
	/* Reads pid's mappings again (a pc fell outside them); false when it did not (too soon, gone) or they are the same. */
	bool (*reread)(void *table, pid_t pid);
	/*
	 * NULL, or the chain r holds with each of pid's eval-loop frames replaced
	 * by the interpreted frames it ran, read from thread tid's memory now
	 * (core/runtime/runtime.h; those words found by STK_FRAME_BY_INTERPRETER);
	 * sps: each of r's frames' stack pointer; whole: the chain reached its
	 * thread's root (else it ended early, and interpreted frames above its
	 * last frame follow it).
	 */
	void (*interpreted)(void *table, pid_t pid, pid_t tid, struct stk_unwind_result *r, const uint64_t *sps,
			    bool whole);
};
/* What frees the unwinder's state in a process's slot (struct stk_process's unwinder): the table calls it. */
void stk_unwinder_slot_free(struct stk_unwinder_proc *state);

/* How a frame was found. */
enum stk_unwind_how {
	STK_FRAME_BY_REGS, /* the leaf: the captured program counter */
	STK_FRAME_BY_CFI,  /* from its callee's CFI */
	STK_FRAME_BY_FP,   /* from its callee's frame pointer (no CFI there) */
	STK_FRAME_BY_INTERPRETER, /* an interpreted frame, read from the interpreter's own (two words) */
};
const char *stk_unwind_how_name(enum stk_unwind_how how);

struct stk_unwind_input {
	pid_t pid, tid;
	const uint64_t *regs; /* DWARF numbering, bpf/user_regs.h; the last one is the pc */
	size_t n_regs;
	uint64_t sp;          /* the address stack[0] was copied from */
	const uint8_t *stack;
	size_t stack_len;
	uint64_t regs_known;  /* bit i: regs[i] is known (the pc always is); 0: all of them are */
	/* Words beyond the copy (NULL: unknown), e.g. read from a blocked thread's memory. */
	bool (*read_more)(void *ctx, uint64_t addr, uint64_t *word);
	void *read_ctx;
};

struct stk_unwind_result {
	uint64_t *ips;   /* caller's array of max entries: leaf first, return addresses after it */
	uint8_t *how;    /* NULL, or max entries of enum stk_unwind_how (costs a CFI lookup per frame) */
	size_t max, n;
	const char *stop; /* why the chain ended; lives as long as the unwinder */
};

struct stk_unwinder;

/* NULL when out of memory. One unwinder per table: the slots are its. */
struct stk_unwinder *stk_unwinder_new(const struct stk_unwind_source *src);
void stk_unwinder_free(struct stk_unwinder *u);
/* Reads pid's modules (and scans their CFI) now rather than at its first sample. */
void stk_unwinder_prepare(struct stk_unwinder *u, pid_t pid);
/*
 * Unwinds in into r (r->ips, r->how, r->max set by the caller). Never fails:
 * r->n may be 0 (no registers), and r->stop always says why the chain ended.
 */
void stk_unwind(struct stk_unwinder *u, const struct stk_unwind_input *in, struct stk_unwind_result *r);
#endif
