/* threadstate's task-iterator source: every thread in one pass of a BPF task iterator. */
#ifndef STK_THREADS_ITER_H
#define STK_THREADS_ITER_H

#include <stddef.h>

#include "core/threads/source.h"

struct stk_bpf;

/* 0 with out filled, or -1 with why set and nothing left loaded. */
int stk_threads_iter_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			  size_t len);

/*
 * For a capture that loads the iterator with other programs in one object
 * (stk record): which of its two programs loads and attaches here, each
 * tried in an object of its own and released (its name, static, or NULL
 * with why); the maps to select with it (NULL-terminated, static); and
 * the source over skel once the caller loaded it (the caller keeps skel,
 * which must outlive out). 0, or -1 with why.
 */
const char *stk_threads_iter_choose(const struct stk_tsource_request *req, char *why, size_t len);
extern const char *const stk_threads_iter_maps[];
int stk_threads_iter_open_in(const struct stk_tsource_request *req, struct stk_bpf *skel, const char *program,
			     struct stk_tsource_impl *out, char *why, size_t len);

#endif
