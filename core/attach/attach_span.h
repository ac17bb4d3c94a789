/*
 * --span targets: found before anything loads (a function or USDT probe
 * that does not exist is a one-line error), then the span programs of
 * bpf/event_log.bpf.c attached to them, one pair per --span slot: a user
 * function's entry (uprobe) and return (uretprobe), or a USDT start and
 * end probe. Where they fire is the file, in every process (or in -p's one).
 */
#ifndef STK_ATTACH_SPAN_H
#define STK_ATTACH_SPAN_H

#include <stddef.h>
#include <sys/types.h>

#include "core/probe/span_spec.h"

struct stk_bpf;
struct stk_span_targets;

/* Finds specs[0..n) in pid's files (0: the system's). NULL with a one-line err. */
struct stk_span_targets *stk_span_find(const struct stk_span_spec *specs, size_t n, pid_t pid, char *err, size_t len);
/*
 * The programs the targets need (NULL-terminated, owned by t), for the
 * applet's selection; USDT ones need libbpf's USDT maps (stk_span_usdt).
 */
const char *const *stk_span_programs(const struct stk_span_targets *t);
int stk_span_usdt(const struct stk_span_targets *t);
/* After load: each slot's configuration written and its programs attached. 0, or -1 with err. */
int stk_span_attach(struct stk_span_targets *t, struct stk_bpf *skel, char *err, size_t len);
/* Detaches (the links of an earlier skeleton, or at the end). */
void stk_span_detach(struct stk_span_targets *t);
void stk_span_targets_free(struct stk_span_targets *t);

#endif
