/* threadstate's task-iterator source: every thread in one pass of a BPF task iterator. */
#ifndef STK_THREADS_ITER_H
#define STK_THREADS_ITER_H

#include <stddef.h>

#include "core/threads/source.h"

/* 0 with out filled, or -1 with why set and nothing left loaded. */
int stk_threads_iter_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			  size_t len);

#endif
