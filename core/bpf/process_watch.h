/*
 * New-process announcements from a stack applet's BPF side
 * (bpf/announce_process.h: a process seen for the first time, or again after
 * an exec), handed to the session while the capture runs: it re-learns the
 * process's mappings (so even processes that exit before the end resolve)
 * and loads its unwind tables.
 */
#ifndef STK_PROCESS_WATCH_H
#define STK_PROCESS_WATCH_H

#include <sys/types.h>

struct bpf_map;
struct stk_run_loop;
struct stk_process_watch;

/* What to do with an announced process. */
typedef void (*stk_process_fn)(void *ctx, pid_t pid);

/* Reads the PERF_EVENT_ARRAY map from loop, calling fn for each. NULL after printing a one-line error. */
struct stk_process_watch *stk_process_watch_start(const char *applet, const struct bpf_map *map,
						  stk_process_fn fn, void *ctx, struct stk_run_loop *loop);
/* Handles the announcements still buffered (call once the BPF side has stopped). */
void stk_process_watch_drain(struct stk_process_watch *w);
void stk_process_watch_free(struct stk_process_watch *w);

#endif
