/*
 * --unwind dwarf in user space: samples (struct stk_stack_sample, bpf/
 * stack_sample.h) read from a PERF_EVENT_ARRAY map while the capture runs,
 * each unwound at once with libdw (core/unwind/unwind_dwarf.c) over the
 * symbolizer's mappings, and counted by exact content
 * (core/stack/stack_table.c). At the end they become symbolized stacks.
 */
#ifndef STK_DWARF_SAMPLES_H
#define STK_DWARF_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_map;
struct stk_run_loop;
struct stk_symbolizer;
struct stk_stack_list;
struct stk_dwarf_samples;

struct stk_dwarf_opts {
	uint32_t max_depth; /* frames kept per user stack */
	bool per_thread;    /* keep tids apart */
	bool verbose;       /* record how each frame was found */
	bool user_only, kernel_only;
	/* all but profile: the kernel counts under each sample's content hash and sends each content
	 * once; samples are kept by hash (stk_dwarf_samples_add) instead of counted. */
	bool by_hash;
};

struct stk_stack;

/*
 * Reads map from loop; sent is the kernel's set of hashes already sent
 * (stk_sent: by_hash only, for stk_dwarf_samples_forget_unused; NULL: none).
 * NULL after printing a one-line error. loop may be
 * NULL: the buffer then exists (the BPF side can send into it from its first
 * event) and stk_dwarf_samples_watch() hands it to the loop once there is one.
 */
struct stk_dwarf_samples *stk_dwarf_samples_start(const char *applet, const struct bpf_map *map,
						  const struct bpf_map *sent, struct stk_symbolizer *sym,
						  struct stk_run_loop *loop, const struct stk_dwarf_opts *o);
/* 0, or -1 after printing a one-line error. */
int stk_dwarf_samples_watch(const char *applet, struct stk_dwarf_samples *d, struct stk_run_loop *loop);
/*
 * Unwinding is bounded: while the capture runs, a SIGINT/SIGTERM on the
 * loop (stk_run_loop_stop_requested) ends a turn at once; from when the
 * session asks for results, past deadline_ns (CLOCK_MONOTONIC; 0: none) or
 * on a signal, queued samples keep only their leaf user frame, their stop
 * reason saying why (why for the deadline). Counted: stk_dwarf_samples_not_unwound.
 */
void stk_dwarf_samples_set_deadline(struct stk_dwarf_samples *d, int64_t deadline_ns, const char *why);
/* Handles the samples still buffered (call once the BPF side has stopped), within the bounds above. */
void stk_dwarf_samples_drain(struct stk_dwarf_samples *d);
/* Samples recorded without unwinding (see above), and the last reason. */
uint64_t stk_dwarf_samples_not_unwound(const struct stk_dwarf_samples *d, const char **why);
/* Not by_hash: every copy counted, symbolized, into l. 0, or -1 when out of memory. */
int stk_dwarf_samples_collect(struct stk_dwarf_samples *d, struct stk_stack_list *l);
/*
 * A copy's id, as a stack reference carries it (bpf/stack_types.h): by_hash,
 * the content hash the kernel counted the copy under; otherwise the number
 * the table gave the copy as it was recorded (1, 2, ...: see on_sample).
 *
 * Appends to l the stack of copy, symbolized, as task (tgid, tid, comm) with
 * value. A copy that never arrived gives a stack marked missing (and counts
 * as lost). NULL when out of memory.
 */
struct stk_stack *stk_dwarf_samples_add(struct stk_dwarf_samples *d, struct stk_stack_list *l, uint64_t copy,
					uint32_t tgid, uint32_t tid, const char *comm, uint64_t value);
/*
 * Not by_hash: fn(ctx, sample, copy) for each sample as it is recorded, with
 * its copy's id: the event log's copy of each sample. NULL: none.
 */
struct stk_stack_sample;
void stk_dwarf_samples_on_sample(struct stk_dwarf_samples *d,
				 void (*fn)(void *ctx, const struct stk_stack_sample *s, uint64_t copy), void *ctx);
/* Whether copy has been unwound (its stack can be added). By hash, this and the lookups below count as a need of it. */
bool stk_dwarf_samples_known(struct stk_dwarf_samples *d, uint64_t copy);
/*
 * by_hash, for a caller that no longer needs the copies it stopped looking
 * up (stk record's series, at each new file; an applet that resolves totals
 * at the end never calls it): a new generation. The copies not looked up
 * in the last one leave the kernel's sent set (it sends them again if they
 * recur); those not looked up in the two last are freed, and their table
 * entries with them. The unwound copies are renumbered (the caller first
 * handles those it has not seen). Returns how many copies were freed.
 */
size_t stk_dwarf_samples_forget_unused(struct stk_dwarf_samples *d);
/* by_hash: the copies stk_dwarf_samples_forget_unused freed, in all. */
uint64_t stk_dwarf_samples_forgotten(const struct stk_dwarf_samples *d);
/* by_hash: how many copies are unwound and kept (0 for NULL); grows but for stk_dwarf_samples_forget_unused. */
size_t stk_dwarf_samples_unwound(const struct stk_dwarf_samples *d);
/* by_hash: the id of the i-th copy unwound (i < stk_dwarf_samples_unwound), else 0. */
uint64_t stk_dwarf_samples_unwound_id(const struct stk_dwarf_samples *d, size_t i);
/* The unwound user addresses (leaf first) of copy. 0, or -1: none arrived. */
int stk_dwarf_samples_user_frames(struct stk_dwarf_samples *d, uint64_t copy, const uint64_t **ips,
				  size_t *n);
bool stk_dwarf_samples_by_hash(const struct stk_dwarf_samples *d);
/* Copies counted whose sample never arrived (after stk_dwarf_samples_add). */
uint64_t stk_dwarf_samples_missing(const struct stk_dwarf_samples *d);
/* Samples user space could not keep (out of memory, malformed). */
uint64_t stk_dwarf_samples_lost(const struct stk_dwarf_samples *d);
/* Samples the kernel found no buffer room for (perf's lost records). */
uint64_t stk_dwarf_samples_buffer_full(const struct stk_dwarf_samples *d);
/* Samples and CPU time spent unwinding them (for -v and the bench). */
void stk_dwarf_samples_stats(const struct stk_dwarf_samples *d, uint64_t *samples, uint64_t *unwind_ns);
void stk_dwarf_samples_free(struct stk_dwarf_samples *d);

#endif
