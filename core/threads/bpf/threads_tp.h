/* threadstate's tracepoint source: sched and syscall tracepoints keep each thread's state in a map. */
#ifndef STK_THREADS_TP_H
#define STK_THREADS_TP_H

#include <stddef.h>

#include "core/threads/source.h"

/* 0 with out filled, or -1 with why set and nothing left attached. */
int stk_threads_tp_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			size_t len);

#endif
