#include "core/threads/thread_sample.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_thread *stk_thread_batch_add(struct stk_thread_batch *b)
{
	if (stk_grow((void **)&b->threads, &b->cap, b->n + 1, sizeof(*b->threads)))
		return NULL;
	struct stk_thread *t = &b->threads[b->n++];
	memset(t, 0, sizeof(*t));
	t->syscall = STK_TSYS_UNKNOWN;
	t->syscall_ns = -1;
	return t;
}

void stk_thread_batch_reset(struct stk_thread_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->threads[i].kstack);
		free(b->threads[i].ustack);
	}
	b->n = 0;
}

void stk_thread_batch_free(struct stk_thread_batch *b)
{
	stk_thread_batch_reset(b);
	free(b->threads);
	b->threads = NULL;
	b->cap = 0;
}

static const char *const state_names[STK_TSTATE_COUNT] = {
	[STK_TSTATE_RUN] = "RUN",         [STK_TSTATE_RUNQ] = "RUNQ",     [STK_TSTATE_SLEEP] = "SLEEP",
	[STK_TSTATE_DISK] = "DISK",       [STK_TSTATE_STOPPED] = "STOPPED", [STK_TSTATE_ZOMBIE] = "ZOMBIE",
	[STK_TSTATE_IDLE] = "IDLE",
};

const char *stk_tstate_name(enum stk_tstate s)
{
	return (unsigned)s < STK_TSTATE_COUNT ? state_names[s] : "?";
}

int stk_tstate_from_name(const char *name, enum stk_tstate *s)
{
	for (int i = 0; i < STK_TSTATE_COUNT; i++)
		if (strcmp(name, state_names[i]) == 0) {
			*s = (enum stk_tstate)i;
			return 0;
		}
	return -1;
}

int stk_tstate_from_letter(char c, enum stk_tstate *s)
{
	switch (c) {
	case 'R': *s = STK_TSTATE_RUN; return 0;
	case 'S': *s = STK_TSTATE_SLEEP; return 0;
	case 'D': *s = STK_TSTATE_DISK; return 0;
	case 'T': case 't': *s = STK_TSTATE_STOPPED; return 0;
	case 'Z': case 'X': case 'x': *s = STK_TSTATE_ZOMBIE; return 0;
	case 'I': case 'P': *s = STK_TSTATE_IDLE; return 0;
	case 'W': case 'K': *s = STK_TSTATE_SLEEP; return 0; /* waking, wakekill (old kernels) */
	}
	return -1;
}

/* The kernel's task state bits (include/linux/sched.h) that tell the states apart. */
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_STOPPED_OR_TRACED 0xc
#define TASK_PARKED 0x40
#define TASK_DEAD 0x80
#define TASK_NOLOAD 0x400

enum stk_tstate stk_tstate_from_task(uint32_t state, uint32_t exit_state, bool on_cpu)
{
	if (exit_state || (state & TASK_DEAD))
		return STK_TSTATE_ZOMBIE;
	if (state == 0)
		return on_cpu ? STK_TSTATE_RUN : STK_TSTATE_RUNQ;
	if ((state & TASK_UNINTERRUPTIBLE) && (state & TASK_NOLOAD))
		return STK_TSTATE_IDLE;
	if (state & TASK_UNINTERRUPTIBLE)
		return STK_TSTATE_DISK;
	if (state & TASK_INTERRUPTIBLE)
		return STK_TSTATE_SLEEP;
	if (state & TASK_STOPPED_OR_TRACED)
		return STK_TSTATE_STOPPED;
	if (state & TASK_PARKED)
		return STK_TSTATE_IDLE;
	return STK_TSTATE_SLEEP;
}

/* Prefixes of the functions a sleeping task passes through on its way to the switch. */
static const char *const sched_prefixes[] = {
	"__schedule", "schedule", "preempt_schedule", "io_schedule", "__switch_to", "context_switch",
	"__cond_resched", "_cond_resched", "do_task_dead", "__traceiter_", "bpf_",
};

bool stk_is_sched_frame(const char *name)
{
	for (size_t i = 0; i < sizeof(sched_prefixes) / sizeof(sched_prefixes[0]); i++)
		if (strncmp(name, sched_prefixes[i], strlen(sched_prefixes[i])) == 0)
			return true;
	return false;
}

const char *stk_wchan_from_frames(const char *const *leaf_first, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (leaf_first[i] && leaf_first[i][0] && !stk_is_sched_frame(leaf_first[i]))
			return leaf_first[i];
	return "";
}

uint64_t stk_stack_hash(const char *folded)
{
	uint64_t h = 1469598103934665603ULL;

	for (const unsigned char *p = (const unsigned char *)folded; *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}
