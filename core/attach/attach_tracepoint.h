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

/*
 * For a capture that loads its programs with others' in one object (stk
 * record): the program of mechanism (a rung's name that stk_tracepoint_attach
 * chose; without the --unwind suffix), and every event attached to that
 * program of skel (loaded and configured by the caller, who keeps it;
 * program with its suffix). 0, or -1 with err and nothing attached.
 */
const char *stk_tracepoint_program(const char *mechanism);
int stk_tracepoint_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
			     const char *program, char *const *names, size_t n, char *err, size_t len);

#endif
