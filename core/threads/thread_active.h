/*
 * threadstate's "active" rule: which sampled threads the default view and
 * recording keep (-a keeps all). Active means doing or waiting for work:
 *   RUN, RUNQ and DISK always;
 *   SLEEP only inside a syscall that moves data (read/write/send/recv
 *   family, connect, splice, fsync, AIO waits) on a socket, a pipe or a
 *   regular file; a sleep in poll/epoll/select, futex, nanosleep, wait4,
 *   accept, or a read on a terminal is idle waiting and is not active.
 *   STOPPED, ZOMBIE and IDLE are never active.
 */
#ifndef STK_THREAD_ACTIVE_H
#define STK_THREAD_ACTIVE_H

#include <stdbool.h>

#include "core/threads/thread_sample.h"

/* The rule needs the file behind the fd argument to decide (read it into t->filename first). */
bool stk_thread_active_needs_file(const struct stk_thread *t);
bool stk_thread_is_active(const struct stk_thread *t);
/* Cheap first cut before the fd is known: false only for threads that cannot be active. */
bool stk_thread_may_be_active(const struct stk_thread *t);

#endif
