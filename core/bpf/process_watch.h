/*
 * New-process announcements from a stack applet's BPF side
 * (bpf/announce_process.h: a process seen for the first time, or again after
 * an exec) re-learn that process's mappings in the symbolizer while the
 * capture runs, so even processes that exit before the end resolve.
 */
#ifndef STK_PROCESS_WATCH_H
#define STK_PROCESS_WATCH_H

struct bpf_map;
struct stk_run_loop;
struct stk_symbolizer;
struct stk_process_watch;

/* Reads the PERF_EVENT_ARRAY map from loop. NULL after printing a one-line error. */
struct stk_process_watch *stk_process_watch_start(const char *applet, const struct bpf_map *map,
						  struct stk_symbolizer *sym, struct stk_run_loop *loop);
/* Handles the announcements still buffered (call once the BPF side has stopped). */
void stk_process_watch_drain(struct stk_process_watch *w);
void stk_process_watch_free(struct stk_process_watch *w);

#endif
