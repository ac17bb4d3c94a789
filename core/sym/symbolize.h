/*
 * The shared symbolizer: kernel addresses through kallsyms, user addresses
 * through /proc/PID/maps + ELF symbol tables (separate debug files, vDSO,
 * /tmp/perf-PID.map for JITs), with C++ demangling. Where no symbol covers
 * an address, CFI names its function "module+0xSTART"; DWARF adds inlined
 * functions and source lines; debug files missing here come from debuginfod
 * (opts.debuginfod) when an address of their file is first resolved, which
 * callers do after the capture. One instance per capture; every string it
 * hands out lives until stk_symbolizer_free(). Not thread-safe: use one
 * symbolizer per thread.
 */
#ifndef STK_SYMBOLIZE_H
#define STK_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/stack/stack.h"
#include "core/unwind/mapping.h"
#include "core/unwind/unwind_dwarf.h"

enum stk_demangle {
	STK_DEMANGLE_FULL,    /* ns::Widget<int>::run(int, char const*) */
	STK_DEMANGLE_NO_ARGS, /* ns::Widget<int>::run */
	STK_DEMANGLE_NONE,    /* _ZN2ns6WidgetIiE3runEiPKc */
};

struct stk_symbolizer_opts {
	enum stk_demangle demangle;
	const char *kallsyms_path; /* NULL: /proc/kallsyms (tests pass a fixture) */
	bool skip_map_files;       /* open files via /proc/PID/root only (tests the non-root path) */
	bool keep_elf;             /* keep each file's ELF for the unwinders (struct stk_file's elf) */
	bool debuginfod;           /* fetch missing debug files from $DEBUGINFOD_URLS (after the capture) */
	bool verbose;              /* debuginfod: say where each debug file came from */
	bool no_inline;            /* no inlined frames from DWARF (source lines stay) */
};

struct stk_symbolizer;

/* NULL opts: defaults. Returns NULL only when out of memory. */
struct stk_symbolizer *stk_symbolizer_new(const struct stk_symbolizer_opts *opts);
void stk_symbolizer_free(struct stk_symbolizer *s);

/*
 * Bounds on the work: past the deadline (ms from now; 0: none), or once
 * stop(ctx) returns true (polled before each process or file is learned),
 * the symbolizer opens nothing more and what it has not learned stays
 * unresolved (address only). Set both before symbolizing a capture.
 */
typedef bool (*stk_symbolizer_stop_fn)(void *ctx);
void stk_symbolizer_set_deadline(struct stk_symbolizer *s, long ms_from_now);
void stk_symbolizer_set_stop(struct stk_symbolizer *s, stk_symbolizer_stop_fn fn, void *ctx);
/* Whether the deadline or a stop request ended the work. */
bool stk_symbolizer_stopped(const struct stk_symbolizer *s);

/*
 * Learns pid's executable mappings and opens + parses their files now (call
 * when a pid is first seen), so it still resolves after it exits.
 * Idempotent and cheap on repeat. 0 or -errno (the process is gone, ...).
 */
int stk_symbolizer_add_process(struct stk_symbolizer *s, pid_t pid);
/*
 * Opens the DWARF (inlined functions, source lines) of every file pid maps
 * now, rather than when an address in it is first resolved: a caller that
 * must answer fast after some moment does this before it.
 */
void stk_symbolizer_open_debug(struct stk_symbolizer *s, pid_t pid);
/*
 * Re-reads pid's mappings (after an exec the old ones describe another
 * program); learns it when unknown. Keeps what it had if pid is gone.
 */
int stk_symbolizer_refresh_process(struct stk_symbolizer *s, pid_t pid);

/*
 * Resolve one address into *frame. Never fails: an unresolved frame has
 * symbol NULL with address (and module when known) set. Unknown processes
 * are learned on demand.
 */
void stk_symbolize_kernel(struct stk_symbolizer *s, uint64_t addr, struct stk_frame *frame);
void stk_symbolize_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame);
/* The same for a return address (every frame but a sample's leaf): source lines and
 * inlined frames are those of the call before it. */
void stk_symbolize_user_caller(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame);

/*
 * An interpreted frame (bpf/runtime_types.h: its frame word and aux word, 0
 * when the chain had none) of pid, named by its runtime (core/runtime/
 * runtime.h): the function's name, file and line; "[python]" when its code
 * object cannot be named any more.
 */
void stk_symbolize_interpreted(struct stk_symbolizer *s, pid_t pid, uint64_t word, uint64_t aux,
			       struct stk_frame *frame);
/* Names now the interpreted frames of pid's chain (n words), while pid lives to be read. */
void stk_symbolizer_name_interpreted(struct stk_symbolizer *s, pid_t pid, const uint64_t *chain, size_t n);

/*
 * n addresses (leaf first) symbolized: kernel ones through kallsyms, user
 * ones in pid's address space, every frame after the leaf as a return
 * address, an interpreted frame's two words (bpf/runtime_types.h) as one
 * frame. A new array (caller frees) with *n set (at most n), or NULL with *n 0.
 */
struct stk_frame *stk_symbolize_ips(struct stk_symbolizer *sym, const uint64_t *ips, size_t n, bool kernel,
				    pid_t pid, size_t *n_out);

/*
 * Kernel symbols usable? 1 when kallsyms is readable with real addresses;
 * 0 otherwise with the reason in why (e.g. addresses hidden by kptr_restrict).
 */
int stk_symbolizer_kernel_status(struct stk_symbolizer *s, char *why, size_t len);

/*
 * The process table (core/unwind/mapping.h), which the copy unwinder and
 * the kernel unwinder's tables read too: pid's entry, learned on first
 * sight, or NULL when its mappings could not be read (it exited before it
 * was first seen). Entries live as long as the symbolizer; their mappings
 * change when the process is read again (refresh_process, a miss).
 */
struct stk_process *stk_symbolizer_process(struct stk_symbolizer *s, pid_t pid);
/* pid's entry when it is in the table (never learned here), else NULL. */
struct stk_process *stk_symbolizer_find_process(struct stk_symbolizer *s, pid_t pid);
/* pid's entry as stk_symbolizer_process, or NULL once it is known to have exited. */
struct stk_process *stk_symbolizer_live_process(struct stk_symbolizer *s, pid_t pid);

/*
 * The process table as the copy unwinder's source (core/unwind/unwind_dwarf.h):
 * the unwinder's per-process state in the process's own entry (freed with
 * it, or when the process exits), mappings reread at most once per 50 ms
 * when a pc falls outside them, interpreted frames read from the process's
 * memory in place of its eval-loop frames (core/runtime/runtime.h). One
 * unwinder per symbolizer.
 */
struct stk_unwind_source stk_symbolizer_unwind_source(struct stk_symbolizer *s);

/*
 * pid exited: it keeps what its stacks need to resolve (mappings, their
 * paths interned and files shared, its perf map) and drops the rest (the
 * copy unwinder's state), so a host where processes come and go by the
 * thousand costs a few hundred bytes each. Its mappings are not read again
 * unless a new process with its pid is announced (refresh_process).
 */
void stk_symbolizer_process_exited(struct stk_symbolizer *s, pid_t pid);
/* Finds the processes that exited (kill(pid, 0)) and compacts them as above; returns how many. */
unsigned stk_symbolizer_sweep(struct stk_symbolizer *s);
/*
 * Frees the entries of processes compacted at or before before_ns
 * (CLOCK_MONOTONIC), their kernel tables given back first (the table
 * holder below: a lost exit message or a reload after the exit left them
 * there); returns how many.
 * Only for a caller that no longer resolves their stacks (stk record's
 * series renders each stack as its events come): a capture that resolves
 * totals at the end needs every process it saw.
 */
unsigned stk_symbolizer_forget_exited(struct stk_symbolizer *s, int64_t before_ns);

/*
 * Who else keeps a part of the table's entries (the kernel unwinder's
 * tables: struct stk_file's and struct stk_process's table): before a file
 * is freed, let_go_file(ctx, f) gives its part back, or returns false and
 * the file stays; before an exited process is freed, let_go_process(ctx, p)
 * gives its part back. NULL: none.
 */
struct stk_table_holder {
	bool (*let_go_file)(void *ctx, struct stk_file *f);
	void (*let_go_process)(void *ctx, struct stk_process *p);
	void *ctx;
};
void stk_symbolizer_set_table_holder(struct stk_symbolizer *s, const struct stk_table_holder *holder);
/*
 * Frees the files no process in the table maps any more (after
 * stk_symbolizer_forget_exited freed those that exited): their parse, their
 * descriptors, their kernel tables; a file mapped again is opened anew.
 * The frames made before go too: the same caveat as forget_exited (only for
 * a caller holding none of the strings handed out). Returns how many.
 */
unsigned stk_symbolizer_forget_files(struct stk_symbolizer *s);

struct stk_symbolizer_stats {
	unsigned processes;        /* learned */
	unsigned processes_exited; /* compacted after their exit */
	unsigned processes_forgotten; /* exited, and freed (stk_symbolizer_forget_exited) */
	unsigned processes_failed; /* gone or unreadable before they could be learned */
	unsigned refreshes;        /* mappings read again: the process announced itself with a new comm */
	unsigned files_parsed;
	unsigned files_forgotten; /* no process mapped them any more, and freed (stk_symbolizer_forget_files) */
	unsigned files_failed;
	unsigned kernel_symbols;
	char last_failure[256];    /* "" when nothing failed */
	unsigned debuginfod_fetched, debuginfod_cached, debuginfod_failed;
	unsigned dwarf_failed;     /* files whose DWARF libdw rejected (reason in last_failure) */
};
void stk_symbolizer_get_stats(const struct stk_symbolizer *s, struct stk_symbolizer_stats *st);
/*
 * -v: each process seen running an interpreter, one line to out: which
 * (or why its frames are not read), the frames user space read of it and
 * why a walk stopped, the code objects named; and each process's jitdump:
 * the code it named, the ranges with CFI.
 */
void stk_symbolizer_runtime_report(const struct stk_symbolizer *s, const char *applet, FILE *out);

#endif
