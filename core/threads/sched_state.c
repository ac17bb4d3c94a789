#include "core/threads/sched_state.h"

#include <string.h>

#include "core/base/options.h"

/* Kernel task state bits (include/linux/sched.h), stable since 4.14. */
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_STOPPED 0x4
#define TASK_TRACED 0x8
#define TASK_PARKED 0x40
#define TASK_NOLOAD 0x400

int stk_state_filter_parse(const char *text, struct stk_state_filter *f)
{
	uint64_t mask;
	int any = 0, d = 0, idle = 0;

	memset(f, 0, sizeof(*f));
	if (text[0] >= '0' && text[0] <= '9') {
		if (stk_parse_u64(text, 0, UINT32_MAX, &mask))
			return -1;
		/* bcc: 0 means "prev->state == 0", anything else a bit mask */
		if (mask == 0)
			f->running = 1;
		else
			f->include = (uint32_t)mask;
		return 0;
	}
	for (const char *p = text; *p; p++) {
		switch (*p) {
		case ',': continue;
		case 'R': f->running = 1; break;
		case 'S': f->include |= TASK_INTERRUPTIBLE; break;
		case 'D': d = 1; break;
		case 'T': f->include |= TASK_STOPPED; break;
		case 't': f->include |= TASK_TRACED; break;
		case 'P': f->include |= TASK_PARKED; break;
		case 'I': idle = 1; break;
		default: return -1;
		}
		any = 1;
	}
	/* D is TASK_UNINTERRUPTIBLE without TASK_NOLOAD (that is I, as ps shows it). */
	if (d) {
		f->include |= TASK_UNINTERRUPTIBLE;
		f->exclude |= TASK_NOLOAD;
	}
	f->idle = (uint32_t)idle;
	return any ? 0 : -1;
}
