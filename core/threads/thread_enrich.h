/*
 * What threadstate adds to a kept thread from /proc, whatever the source:
 * the file behind its fd argument, its executable and user name (cached per
 * process), and the wchan, syscall and kernel stack when the source could
 * not tell them.
 */
#ifndef STK_THREAD_ENRICH_H
#define STK_THREAD_ENRICH_H

#include <stdbool.h>

#include "core/threads/thread_sample.h"

struct stk_thread_enrich;

struct stk_thread_enrich *stk_thread_enrich_new(const char *proc_root);
void stk_thread_enrich_free(struct stk_thread_enrich *e);

/* readlink of the fd argument into t->filename ("" when none or unreadable). */
void stk_thread_read_fd_name(const struct stk_thread_enrich *e, struct stk_thread *t);
/* The syscall and its arguments from /proc (for sources that could not tell). */
void stk_thread_read_syscall(const struct stk_thread_enrich *e, struct stk_thread *t);
/* Fills exe, username, and (when empty) syscall, wchan and, with kernel_stack, kstack. */
void stk_thread_enrich(struct stk_thread_enrich *e, struct stk_thread *t, bool kernel_stack);
/* End of a sample pass: forget processes that were not seen in it. */
void stk_thread_enrich_end_pass(struct stk_thread_enrich *e);

#endif
