/*
 * A thread's sample (threadstate's pass, stk record's state kind) as a row
 * of the event log: its time, task, state by threadstate's name ("RUN",
 * "SLEEP"), system call, wchan and file, weight 1 and no stack; its event
 * and unit are the writer's to say. The columns threadstate's CSV has.
 */
#ifndef STK_THREAD_ROWS_H
#define STK_THREAD_ROWS_H

#include <stdint.h>

#include "core/eventlog/event_writer.h"
#include "core/threads/thread_sample.h"

/* t sampled at wall_ns into row (which points into t: valid while t is). */
void stk_ev_thread_row(const struct stk_thread *t, int64_t wall_ns, struct stk_ev_row *row);

#endif
