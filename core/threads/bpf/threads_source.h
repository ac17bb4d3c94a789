/*
 * Choosing threadstate's sampling source. The order is the thread sampling
 * ladder of core/ladder/ladder.c (task_iter -> tracepoint_state -> proc):
 * each candidate is opened, loaded and attached for real and the first that
 * works is kept, so the choice is what the running kernel accepts.
 */
#ifndef STK_THREADS_SOURCE_H
#define STK_THREADS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ladder/ladder.h"
#include "core/threads/source.h"
#include "core/threads/thread_sample.h"

const char *stk_tsource_name(enum stk_tsource s);
int stk_tsource_from_name(const char *name, enum stk_tsource *s);

struct stk_thread_sampler;

/* NULL with err set when no source works (or the forced one does not). */
struct stk_thread_sampler *stk_tsource_open(const struct stk_tsource_request *req, char *err, size_t errlen);
/*
 * stk record: the task iterator's program of skel (stk_threads_iter_choose;
 * the caller loaded skel and keeps it), or /proc when program is NULL. NULL
 * with err.
 */
struct stk_bpf;
struct stk_thread_sampler *stk_tsource_open_in(const struct stk_tsource_request *req, struct stk_bpf *skel,
					       const char *program, char *err, size_t errlen);
enum stk_tsource stk_tsource_kind(const struct stk_thread_sampler *s);
/* Why earlier candidates were passed over ("" when the first worked). */
const char *stk_tsource_tried(const struct stk_thread_sampler *s);
/* user_dwarf: the samples' perf buffer map and the loss counters (NULL otherwise). */
struct bpf_map *stk_tsource_user_samples(const struct stk_thread_sampler *s);
struct bpf_map *stk_tsource_user_stats(const struct stk_thread_sampler *s);
/* One pass over the threads into b (b->wall_ns, b->mono_ns set). 0 or -1. */
int stk_tsource_sample(struct stk_thread_sampler *s, struct stk_thread_batch *b);
void stk_tsource_free(struct stk_thread_sampler *s);

#endif
