#include "core/threads/thread_active.h"

#include <string.h>

#include "core/threads/syscall_table.h"

static bool sleeping_in_io_syscall(const struct stk_thread *t)
{
	return t->state == STK_TSTATE_SLEEP && t->syscall >= 0 && stk_syscall_waits_for_io(t->syscall);
}

bool stk_thread_active_needs_file(const struct stk_thread *t)
{
	return sleeping_in_io_syscall(t) && stk_syscall_fd_arg(t->syscall) >= 0;
}

/* Sockets, pipes and files on a file system; not terminals or other devices. */
static bool data_file(const char *name)
{
	return strncmp(name, "socket:", 7) == 0 || strncmp(name, "pipe:", 5) == 0 ||
	       (name[0] == '/' && strncmp(name, "/dev/", 5) != 0);
}

bool stk_thread_is_active(const struct stk_thread *t)
{
	switch (t->state) {
	case STK_TSTATE_RUN:
	case STK_TSTATE_RUNQ:
	case STK_TSTATE_DISK:
		return true;
	case STK_TSTATE_SLEEP:
		if (!sleeping_in_io_syscall(t))
			return false;
		return stk_syscall_fd_arg(t->syscall) < 0 || data_file(t->filename);
	default:
		return false;
	}
}

bool stk_thread_may_be_active(const struct stk_thread *t)
{
	switch (t->state) {
	case STK_TSTATE_RUN:
	case STK_TSTATE_RUNQ:
	case STK_TSTATE_DISK:
		return true;
	case STK_TSTATE_SLEEP:
		return t->syscall == STK_TSYS_UNKNOWN || sleeping_in_io_syscall(t);
	default:
		return false;
	}
}
