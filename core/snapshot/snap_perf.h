/*
 * Threads on a CPU, taken as they run: one perf sample of each (its own
 * task clock, which ticks only while it runs) with its user registers, a
 * copy of its user stack and its kernel call chain, as `perf record
 * --call-graph dwarf` takes them; no BPF needed. The thread is not
 * stopped: a sample is taken in the timer interrupt that preempts it.
 */
#ifndef STK_SNAP_PERF_H
#define STK_SNAP_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot/snapshot.h"

/*
 * Samples each of the n threads (tids[i] of tgids[i]) once, waiting at most
 * timeout_ms: a record (state RUN, how "perf") is appended to out for each
 * thread sampled, and sampled[i] set; *starved counts the threads not
 * sampled that ran less than one sampling period meanwhile (runnable but
 * waiting for a CPU, or blocked). Returns how many were sampled, or -1 with
 * why when no thread's event could be opened.
 */
int stk_snap_perf_take(const uint32_t *tids, const uint32_t *tgids, size_t n, uint32_t stack_bytes, long timeout_ms,
		       struct stk_snap *out, bool *sampled, size_t *starved, char *why, size_t len);

/*
 * One PERF_RECORD_SAMPLE's body (after its header) with TID, CALLCHAIN, REGS_USER and STACK_USER
 * into t: tid, tgid, kernel frames, registers (in DWARF numbering) and the
 * stack copy. 0, or -1 when malformed or out of memory.
 */
int stk_perf_sample_parse(const uint8_t *body, size_t len, struct stk_snap_thread *t);
/* The registers asked for (sample_regs_user), in perf's numbering. */
uint64_t stk_perf_regs_mask(void);

#endif
