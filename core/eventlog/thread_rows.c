/* A thread's sample as an event log row: see thread_rows.h. */
#include "core/eventlog/thread_rows.h"

void stk_ev_thread_row(const struct stk_thread *t, int64_t wall_ns, struct stk_ev_row *row)
{
	*row = (struct stk_ev_row){
		.time = wall_ns, .pid = t->tgid, .tid = t->tid,
		.cpu = UINT32_MAX, /* -1 in the file: a pass over threads is on no CPU of theirs */
		.comm = t->comm, .weight = 1, .state_name = stk_tstate_name(t->state),
		.syscall = t->syscall >= 0 ? t->syscall + 1 : 0, .wchan = t->wchan, .file = t->filename,
	};
}
