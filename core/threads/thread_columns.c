#include "core/threads/thread_columns.h"

#include <stdio.h>
#include <string.h>

#include "core/threads/stack_fold.h"
#include "core/threads/syscall_table.h"

/* Frames of a stack column in the table: where the thread is, not the whole chain. */
#define STACK_FRAMES_SHOWN 4

static const struct {
	const char *name, *description;
} columns[STK_TCOL_COUNT] = {
	[STK_TCOL_STATE] = { "state", "RUN, RUNQ, SLEEP, DISK, STOPPED, ZOMBIE or IDLE" },
	[STK_TCOL_USERNAME] = { "username", "owner of the process" },
	[STK_TCOL_COMM] = { "comm", "thread name" },
	[STK_TCOL_SYSCALL] = { "syscall", "system call the thread is in" },
	[STK_TCOL_WCHAN] = { "wchan", "kernel function the thread waits in" },
	[STK_TCOL_FILENAME] = { "filename", "file behind the syscall's fd argument" },
	[STK_TCOL_EXE] = { "exe", "executable of the process" },
	[STK_TCOL_PID] = { "pid", "process id (tgid)" },
	[STK_TCOL_TID] = { "tid", "thread id" },
	[STK_TCOL_KSTACK] = { "kstack", "innermost kernel frames, leaf first (-k; the CSV has its hash)" },
	[STK_TCOL_USTACK] = { "ustack", "innermost user frames, leaf first (-u; the CSV has its hash)" },
};

const char *stk_tcol_name(enum stk_tcol c)
{
	return columns[c].name;
}

const char *stk_tcol_description(enum stk_tcol c)
{
	return columns[c].description;
}

int stk_tcol_from_name(const char *name)
{
	for (int c = 0; c < STK_TCOL_COUNT; c++)
		if (strcmp(columns[c].name, name) == 0)
			return c;
	return -1;
}

void stk_syscall_text(int32_t nr, char *buf, size_t len)
{
	const char *name = nr >= 0 ? stk_syscall_name(nr) : NULL;

	if (nr < 0)
		buf[0] = '\0';
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "syscall_%d", (int)nr);
}

void stk_tcol_value(const struct stk_thread *t, enum stk_tcol c, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (c) {
	case STK_TCOL_STATE: snprintf(buf, len, "%s", stk_tstate_name(t->state)); break;
	case STK_TCOL_USERNAME: snprintf(buf, len, "%s", t->username ? t->username : ""); break;
	case STK_TCOL_COMM: snprintf(buf, len, "%s", t->comm); break;
	case STK_TCOL_SYSCALL: stk_syscall_text(t->syscall, buf, len); break;
	case STK_TCOL_WCHAN: snprintf(buf, len, "%s", t->wchan); break;
	case STK_TCOL_FILENAME: snprintf(buf, len, "%s", t->filename); break;
	case STK_TCOL_EXE: snprintf(buf, len, "%s", t->exe ? t->exe : ""); break;
	case STK_TCOL_PID: snprintf(buf, len, "%u", t->tgid); break;
	case STK_TCOL_TID: snprintf(buf, len, "%u", t->tid); break;
	case STK_TCOL_KSTACK: stk_fold_innermost(t->kstack, STACK_FRAMES_SHOWN, buf, len); break;
	case STK_TCOL_USTACK: stk_fold_innermost(t->ustack, STACK_FRAMES_SHOWN, buf, len); break;
	case STK_TCOL_COUNT: break;
	}
}
