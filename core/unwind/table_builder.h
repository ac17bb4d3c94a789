/*
 * CFI tables built on a thread of their own. A large library's table takes
 * a CPU-heavy 100 ms or more; built on the run loop, it would hold up what
 * must be quick (reading a new process's mappings before it exits, draining
 * the sample buffer). The builder takes jobs (a file: its own descriptor or
 * image, so it shares no libelf state with the caller), builds one table at
 * a time (its own guard scan, then core/unwind/cfi_table.c under the usual
 * limits, CPU time counted per thread) and hands each result back through
 * an eventfd. It builds ahead while the caller is busy (a loaded host
 * keeps the run loop long between turns, and every file still without its
 * table sends its samples down the costly copy path), holding finished
 * tables up to STK_TABLE_BUILDER_DONE_BYTES (at least one), so memory stays
 * bounded whatever the queue.
 */
#ifndef STK_TABLE_BUILDER_H
#define STK_TABLE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/unwind/cfi_table.h"
#include "core/unwind/mapping.h"

struct stk_table_builder;

#define STK_TABLE_BUILDER_DONE_BYTES (64u << 20)

/* A finished job. */
struct stk_table_built {
	struct stk_file *file;     /* the job's file, as submitted (a name for the result: never read by the thread) */
	char name[96];             /* for -v */
	bool ok;                   /* false: no table (why says so) */
	struct stk_cfi_table table; /* ok: the caller frees it (stk_cfi_table_free) */
	char why[160];
};

/* Starts the thread; lim's stop callback is replaced by the builder's own. NULL (errno) on failure. */
struct stk_table_builder *stk_table_builder_new(const struct stk_cfi_table_limits *lim);
/*
 * Queues file's table: read through a descriptor of its own (a dup of fd),
 * or, when fd < 0, from a copy of image (size bytes: a vDSO). 0, or -1 (errno).
 */
int stk_table_builder_submit(struct stk_table_builder *b, struct stk_file *file, const char *name, int fd,
			     const void *image, size_t size);
/* Readable (an eventfd) while finished jobs wait to be taken. */
int stk_table_builder_fd(const struct stk_table_builder *b);
/* The next finished job into *out: true, or false when none is ready. */
bool stk_table_builder_take(struct stk_table_builder *b, struct stk_table_built *out);
/* Jobs queued or being built. */
size_t stk_table_builder_pending(struct stk_table_builder *b);
/* Stops the thread (a build under way ends at its next check), drops what is queued, frees. */
void stk_table_builder_free(struct stk_table_builder *b);

#endif
