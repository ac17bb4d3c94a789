/*
 * stk top's screens as tables (core/view/view_table.h): the groups of a
 * window with their average active threads, the threads of one group, and
 * one thread's stack; plus the line that sums up the host.
 */
#ifndef STK_TOP_SCREENS_H
#define STK_TOP_SCREENS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/threads/thread_group.h"
#include "core/top/top_window.h"
#include "core/view/view_table.h"

struct stk_stack_list;

/* The groups table's columns for this grouping: AAT, THREADS, then one per grouping column. */
void stk_top_groups_init(struct stk_vtable *t, const struct stk_group_spec *spec);
/* Its rows from the window (its groups summed). 0, or -1 out of memory. */
int stk_top_groups_fill(struct stk_vtable *t, struct stk_top_window *w);
void stk_top_threads_init(struct stk_vtable *t);
/* The threads of the group with this key. 0, or -1. */
int stk_top_threads_fill(struct stk_vtable *t, const struct stk_top_window *w, const char *group_key);
void stk_top_stack_init(struct stk_vtable *t);
/* The frames of l's first stack, leaf first: kernel, then user. 0, or -1. */
int stk_top_stack_fill(struct stk_vtable *t, const struct stk_stack_list *l);
/* "Threads 812 on the host; shown 5: RUN 2, RUNQ 1, DISK 1, SLEEP 1" (the last pass; states with none left
 * out); the host's count only when live. */
void stk_top_host_line(const struct stk_top_window *w, bool live, char *buf, size_t len);

#endif
