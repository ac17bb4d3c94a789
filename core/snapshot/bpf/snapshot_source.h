/*
 * Taking a snapshot of every wanted thread: the mechanism is the first of
 * the thread snapshot ladder (core/ladder/ladder.c: task_iter_copy > proc >
 * ptrace) that opens here, as core/ladder/climb.h walks it. After a pass,
 * threads that were on a CPU are sampled as they run
 * (core/snapshot/snap_perf.h) and threads that ran while they were copied
 * are taken again, a few rounds at most (more while a runnable thread got
 * no CPU to be sampled on: an oversubscribed host or VM); what is still
 * missing then is said per thread (no_user), never made up.
 */
#ifndef STK_SNAPSHOT_SOURCE_H
#define STK_SNAPSHOT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ladder/ladder.h"
#include "core/snapshot/snapshot.h"

struct stk_frame_names;
struct stk_snapper;

struct stk_snap_request {
	struct stk_snap_want want;
	uint32_t self_tgid;   /* left out: stk itself */
	uint32_t stack_bytes; /* user stack copied per thread */
	long running_ms;      /* how long a round waits for threads on a CPU to be sampled */
	long starved_ms;      /* more rounds, up to this long in all, while such a thread has not run (0: none) */
	const char *btf_custom_path;
	bool kernel_btf;      /* the running kernel's own BTF exists */
	const char *forced;   /* --mechanism: the rung to use or fail, or NULL: the first that works */
	bool never_stop;      /* pass over the mechanism that stops threads (ptrace) */
};

struct stk_snap_stats {
	size_t threads;         /* in the snapshot */
	size_t sampled_running; /* taken by a sample as they ran */
	size_t retaken;         /* taken again after they ran while being copied */
	size_t unresolved;      /* still running or racing after the last round: no user stack */
	size_t starved;         /* of those on a CPU in the last round, how many did not run long enough to be sampled */
	double pass_ms;         /* the first pass */
	double total_ms;        /* the whole snapshot */
	const char *perf_why;   /* why threads on a CPU could not be sampled, or NULL */
};

/* NULL with err set when no mechanism works (or the forced one does not). */
struct stk_snapper *stk_snapper_open(const struct stk_snap_request *req, char *err, size_t len);
enum stk_snap_mech stk_snapper_mech(const struct stk_snapper *s);
const char *stk_snapper_mech_name(const struct stk_snapper *s);
/* Why earlier rungs were passed over ("" when the first worked). */
const char *stk_snapper_tried(const struct stk_snapper *s);
/* Where frame names (kernel stacks from /proc) are interned; lives as long as s. */
struct stk_frame_names *stk_snapper_names(struct stk_snapper *s);
/* One snapshot of the wanted threads appended to out (out reset first). 0, or -1 (errno) when none could be read. */
int stk_snapper_take(struct stk_snapper *s, struct stk_snap *out, struct stk_snap_stats *st);
void stk_snapper_free(struct stk_snapper *s);

#endif
