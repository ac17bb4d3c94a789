/* Attaching stackcount's tracepoint program to each matched "category:event". */
#ifndef STK_ATTACH_TRACEPOINT_H
#define STK_ATTACH_TRACEPOINT_H

#include <stddef.h>

#include "core/attach/attach_probe.h"

/*
 * raw_tp when every event is a real tracepoint, else the classic tracepoint
 * program (one perf-event link per tracepoint); forced ("raw_tp",
 * "tracepoint" or NULL) allows only that one. 0, or -1 with err set and
 * nothing attached.
 */
int stk_tracepoint_attach(struct stk_probe_set *s, const struct stk_probe_load *load, char *const *names, size_t n,
			  const char *forced, char *err, size_t len);

#endif
