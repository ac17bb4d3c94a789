/*
 * The cfi rung in a session: the kernel unwinder's tables kept filled while
 * the capture runs. A process gets its tables when it is first seen (at
 * start for -p, else at its announcement, its files' tables built on a
 * thread of their own: its first samples take the copy path meanwhile), again when the walk finds its mappings changed or it
 * exec'd, and gives them back when it exits (BPF hooks on exec and exit tell
 * user space through unwind_requests). At the end, chain ids in the count
 * keys are read back as address chains.
 */
#ifndef STK_KERNEL_UNWIND_H
#define STK_KERNEL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stk_bpf;
struct stk_run_loop;
struct stk_symbolizer;
struct stk_kernel_unwind;
struct stk_unwind_sizes;

/* Before load: sizes the unwinder's maps (its names go into the applet's selection). 0, or -1 (errno). */
int stk_kernel_unwind_prepare(struct stk_bpf *skel, const struct stk_unwind_sizes *sizes);

/*
 * After load: the tables over skel's maps, the exec and exit hooks
 * attached, and pids loaded now. The processes and files come from sym's
 * process table and file cache, which keep the tables' part of each entry:
 * sym outlives the result. NULL after printing a one-line error.
 */
struct stk_kernel_unwind *stk_kernel_unwind_start(const char *applet, struct stk_bpf *skel,
						  struct stk_symbolizer *sym, const uint32_t *pids, size_t n_pids,
						  bool verbose);
/* Table builds end early once stop(ctx) is true (the run loop's SIGINT/SIGTERM). */
void stk_kernel_unwind_set_stop(struct stk_kernel_unwind *u, bool (*stop)(void *ctx), void *ctx);
/* Reads the hooks' and the walk's requests from loop. 0, or -1 after printing an error. */
int stk_kernel_unwind_watch(const char *applet, struct stk_kernel_unwind *u, struct stk_run_loop *loop);
/*
 * pid's tables loaded (or reloaded) from its entry in the process table (an
 * announcement): files without a table go to the builder's thread
 * (core/unwind/table_builder.h), so a large file's table never holds up the
 * loop; the process is loaded again as each arrives.
 */
void stk_kernel_unwind_load(struct stk_kernel_unwind *u, pid_t pid);
/* Requests still buffered. */
void stk_kernel_unwind_drain(struct stk_kernel_unwind *u);
/* The capture is over (the BPF side detached): no table is built any more. */
void stk_kernel_unwind_stop(struct stk_kernel_unwind *u);
/*
 * Chain id's frames (leaf first) into pcs (max entries). 0 with *n, its stop
 * reason (enum stk_walk_stop) and whether it is a kernel chain; -1 when the
 * id is not in the store.
 */
int stk_kernel_unwind_chain(const struct stk_kernel_unwind *u, uint64_t id, uint64_t *pcs, size_t max, size_t *n,
			    unsigned *stop, bool *kernel);
/* Warnings (chains lost, tables full) and, verbose, what the walk did and the tables hold. */
void stk_kernel_unwind_report(const struct stk_kernel_unwind *u, const char *applet, uint64_t copy_samples);
void stk_kernel_unwind_free(struct stk_kernel_unwind *u);

#endif
