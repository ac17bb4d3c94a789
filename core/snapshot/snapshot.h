/*
 * A snapshot of threads, as a mechanism took each of them at one moment
 * without stopping it (core/snapshot/bpf/snapshot_source.h picks the
 * mechanism): its state, its kernel frames, its user registers and a copy
 * of its user stack, which core/snapshot/snap_unwind.h unwinds. A record
 * may still lack what a later step adds: a thread on a CPU is sampled as
 * it runs, one that ran while it was copied is taken again.
 */
#ifndef STK_SNAPSHOT_H
#define STK_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/user_regs.h"
#include "core/threads/thread_sample.h"

/* What a record still waits for (pending). */
#define STK_SNAP_RUNNING 0x1 /* on a CPU when taken: to be sampled as it runs */
#define STK_SNAP_RACED 0x2   /* it ran while it was taken: to be taken again */
#define STK_SNAP_GONE 0x4    /* it exited before it could be taken again: dropped */

struct stk_snap_thread {
	uint32_t tid, tgid;
	char comm[16];
	enum stk_tstate state;
	bool kthread;
	uint32_t pending;    /* STK_SNAP_RUNNING, STK_SNAP_RACED */
	const char *how;     /* the mechanism that took it ("task_iter_copy", "perf", ...): static */
	uint64_t *kernel;    /* leaf first: addresses, or stk_frame_names ids (/proc); owned */
	size_t n_kernel;
	bool has_regs;
	uint64_t regs[STK_UREGS_N]; /* DWARF numbering, the pc last */
	uint64_t regs_known;        /* bit i: regs[i] known; 0: all are */
	uint8_t *stack;             /* copied from regs[STK_UREG_SP] up; owned */
	size_t stack_len;
	uint64_t switches;          /* nvcsw + nivcsw when taken, to tell later whether it ran since */
	bool switches_known;
	const char *no_user;        /* why there is no user stack (kernel thread, exited, ...): static, or NULL */
};

/* Which threads a pass takes: tids when given, else the processes pids, else every thread on the host. */
struct stk_snap_want {
	const uint32_t *pids;
	size_t n_pids;
	const uint32_t *tids;
	size_t n_tids;
};

struct stk_snap {
	struct stk_snap_thread *threads;
	size_t n, cap;
};

/* A zeroed new record, or NULL when out of memory. */
struct stk_snap_thread *stk_snap_add(struct stk_snap *s);
/* Frees what t owns and zeroes it. */
void stk_snap_thread_clear(struct stk_snap_thread *t);
/* Replaces *t by *with, whose arrays it takes (with is zeroed). */
void stk_snap_thread_replace(struct stk_snap_thread *t, struct stk_snap_thread *with);
/* Drops the records for which drop() is true, keeping the order of the rest. */
void stk_snap_filter(struct stk_snap *s, bool (*drop)(const struct stk_snap_thread *t, void *ctx), void *ctx);
void stk_snap_reset(struct stk_snap *s);
void stk_snap_free(struct stk_snap *s);

/* One mechanism: a pass over the wanted threads, appended to out; 0, or -1 with errno. */
struct stk_snap_rung {
	int (*take)(void *impl, const struct stk_snap_want *want, struct stk_snap *out);
	void (*free)(void *impl);
	void *impl;
};

#endif
