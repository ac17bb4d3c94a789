/*
 * What stk top shows, gathered between two refreshes: every kept thread of
 * every sample pass, counted under its group (the values of the view's
 * grouping columns) and by itself, so the group table and the list of one
 * group's threads come from the same counts, and the shown threads per
 * state in the last pass.
 */
#ifndef STK_TOP_WINDOW_H
#define STK_TOP_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/key_index.h"
#include "core/threads/thread_group.h"
#include "core/threads/thread_sample.h"

#define STK_TOP_CELL 64

/* One thread under one group over the window: what the thread list shows. */
struct stk_top_thread {
	uint32_t tid, tgid;
	uint64_t samples;
	char *group_key; /* owned */
	char state[8], user[32], comm[STK_THREAD_COMM_LEN], syscall[32], wchan[STK_THREAD_WCHAN_LEN];
};

/* One group of the window: its values (one per grouping column) and samples. */
struct stk_top_group {
	char *key;    /* the values joined by STK_TOP_KEY_SEP; owned */
	uint64_t samples;
	size_t threads; /* distinct threads counted in it */
};

#define STK_TOP_KEY_SEP '\x1f'

struct stk_top_window {
	struct stk_group_spec spec;
	struct stk_top_thread *threads;
	size_t n_threads, cap_threads;
	struct stk_key_index thread_ix; /* by tid and group key */
	struct stk_top_group *groups;
	size_t n_groups, cap_groups;
	uint64_t passes;                   /* sample passes in the window */
	size_t states[STK_TSTATE_COUNT]; /* the last pass: the threads counted, by state */
	size_t counted;                  /* and in all */
};

void stk_top_window_init(struct stk_top_window *w, const struct stk_group_spec *spec);
void stk_top_window_free(struct stk_top_window *w);
/* A new grouping: the window starts over. */
void stk_top_window_regroup(struct stk_top_window *w, const struct stk_group_spec *spec);
/* Counts one pass: b's threads with keep set and accepted by filter (NULL: all). 0, or -1 out of memory. */
int stk_top_window_add(struct stk_top_window *w, const struct stk_thread_batch *b,
		       bool (*filter)(const struct stk_thread *t, void *ctx), void *ctx);
/* The groups of the window, summed from its threads (w->groups). 0, or -1 out of memory. */
int stk_top_window_groups(struct stk_top_window *w);
/* Starts a new window (after a refresh drew this one). */
void stk_top_window_reset(struct stk_top_window *w);
/* The key of a thread's group: its values of spec's columns joined by STK_TOP_KEY_SEP into buf. */
void stk_top_group_key(const struct stk_group_spec *spec, const struct stk_thread *t, char *buf, size_t len);
/* The i-th value of a group key into buf (for the table's cells). */
void stk_top_key_value(const char *key, size_t i, char *buf, size_t len);

#endif
