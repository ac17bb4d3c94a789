/*
 * threadstate's /proc source (no BPF at all): every pass reads
 * /proc/PID/task/TID/stat of every thread, and /proc/.../syscall of those
 * not running. /proc shows runnable and running alike as R; a thread that
 * is R in two passes in a row is told RUNQ when /proc/.../schedstat says it
 * did not run in between, or waited on a run queue longer than it ran, RUN
 * otherwise.
 */
#ifndef STK_THREADS_PROC_H
#define STK_THREADS_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "core/threads/thread_sample.h"

struct stk_threads_proc;

/* proc_root is "/proc" (tests may pass another); pids: only these processes (n 0: all). */
struct stk_threads_proc *stk_threads_proc_new(const char *proc_root, const uint32_t *pids, size_t n_pids,
					      uint32_t skip_tgid);
/* One pass over the threads, appended to b. 0, or -1 when proc_root cannot be read. */
int stk_threads_proc_sample(struct stk_threads_proc *p, struct stk_thread_batch *b);
void stk_threads_proc_free(struct stk_threads_proc *p);

/*
 * One thread's stat (state, comm, kernel thread) and, unless it is R, its
 * syscall, into t. 0, or -1 when the thread is gone.
 */
int stk_thread_read_proc(const char *proc_root, uint32_t tgid, uint32_t tid, struct stk_thread *t);

/* Called for each thread; nonzero stops the walk of its process. */
typedef int (*stk_thread_visit)(void *ctx, uint32_t tgid, uint32_t tid);
/* Every thread under proc_root (or of pids only), except skip_tgid's. 0, or -1 when unreadable. */
int stk_proc_walk_threads(const char *proc_root, const uint32_t *pids, size_t n_pids, uint32_t skip_tgid,
			  stk_thread_visit visit, void *ctx);

#endif
