/* stk top's screens as tables (top_screens.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/base/sysfs_read.h"
#include "core/session/stack_list.h"
#include "core/threads/thread_columns.h"
#include "core/top/top_screens.h"

/* Column titles as the table shows them, by enum stk_tcol. */
static const char *const tcol_titles[STK_TCOL_COUNT] = {
	[STK_TCOL_STATE] = "STATE", [STK_TCOL_USERNAME] = "USER", [STK_TCOL_COMM] = "COMM",
	[STK_TCOL_SYSCALL] = "SYSCALL", [STK_TCOL_WCHAN] = "WCHAN", [STK_TCOL_FILENAME] = "FILE",
	[STK_TCOL_EXE] = "EXE", [STK_TCOL_PID] = "PID", [STK_TCOL_TID] = "TID", [STK_TCOL_KSTACK] = "KSTACK",
	[STK_TCOL_USTACK] = "USTACK",
};

#define GROUP_FIXED 2 /* AAT and THREADS before the grouping columns */

void stk_top_groups_init(struct stk_vtable *t, const struct stk_group_spec *spec)
{
	struct stk_vt_column cols[STK_VT_MAX_COLS] = {
		{ "AAT", true }, /* average active threads */
		{ "THREADS", true },
	};
	size_t n = GROUP_FIXED;

	for (size_t i = 0; i < spec->n && n < STK_VT_MAX_COLS; i++)
		cols[n++] = (struct stk_vt_column){ tcol_titles[spec->cols[i]], false };
	stk_vtable_free(t);
	stk_vtable_init(t, cols, n, 0);
}

int stk_top_groups_fill(struct stk_vtable *t, struct stk_top_window *w)
{
	char values[STK_VT_MAX_COLS][STK_TOP_CELL], aat[32], threads[32];
	const char *cells[STK_VT_MAX_COLS];
	double nums[STK_VT_MAX_COLS] = { 0 };

	stk_vtable_clear(t);
	if (stk_top_window_groups(w))
		return -1;
	for (size_t g = 0; g < w->n_groups; g++) {
		const struct stk_top_group *gr = &w->groups[g];

		nums[0] = w->passes ? (double)gr->samples / (double)w->passes : 0;
		nums[1] = (double)gr->threads;
		snprintf(aat, sizeof(aat), "%.2f", nums[0]);
		snprintf(threads, sizeof(threads), "%zu", gr->threads);
		cells[0] = aat;
		cells[1] = threads;
		for (size_t c = GROUP_FIXED; c < t->n_cols; c++) {
			stk_top_key_value(gr->key, c - GROUP_FIXED, values[c], sizeof(values[c]));
			cells[c] = values[c];
		}
		if (stk_vtable_add(t, gr->key, cells, nums))
			return -1;
	}
	return stk_vtable_finish(t);
}

enum { TH_TID, TH_PID, TH_AAT, TH_STATE, TH_USER, TH_COMM, TH_SYSCALL, TH_WCHAN, TH_COLS };

void stk_top_threads_init(struct stk_vtable *t)
{
	static const struct stk_vt_column cols[TH_COLS] = {
		[TH_TID] = { "TID", true }, [TH_PID] = { "PID", true }, [TH_AAT] = { "AAT", true },
		[TH_STATE] = { "STATE", false }, [TH_USER] = { "USER", false }, [TH_COMM] = { "COMM", false },
		[TH_SYSCALL] = { "SYSCALL", false }, [TH_WCHAN] = { "WCHAN", false },
	};
	stk_vtable_free(t);
	stk_vtable_init(t, cols, TH_COLS, TH_AAT);
}

int stk_top_threads_fill(struct stk_vtable *t, const struct stk_top_window *w, const char *group_key)
{
	stk_vtable_clear(t);
	for (size_t i = 0; i < w->n_threads; i++) {
		const struct stk_top_thread *th = &w->threads[i];
		char tid[16], pid[16], aat[32];
		double nums[TH_COLS] = { 0 };

		if (strcmp(th->group_key, group_key) != 0)
			continue;
		nums[TH_TID] = th->tid;
		nums[TH_PID] = th->tgid;
		nums[TH_AAT] = w->passes ? (double)th->samples / (double)w->passes : 0;
		snprintf(tid, sizeof(tid), "%" PRIu32, th->tid);
		snprintf(pid, sizeof(pid), "%" PRIu32, th->tgid);
		snprintf(aat, sizeof(aat), "%.2f", nums[TH_AAT]);
		const char *cells[TH_COLS] = {
			[TH_TID] = tid, [TH_PID] = pid, [TH_AAT] = aat, [TH_STATE] = th->state, [TH_USER] = th->user,
			[TH_COMM] = th->comm, [TH_SYSCALL] = th->syscall, [TH_WCHAN] = th->wchan,
		};
		if (stk_vtable_add(t, tid, cells, nums))
			return -1;
	}
	return stk_vtable_finish(t);
}

enum { ST_DEPTH, ST_FRAME, ST_WHERE, ST_COLS };

void stk_top_stack_init(struct stk_vtable *t)
{
	static const struct stk_vt_column cols[ST_COLS] = {
		[ST_DEPTH] = { "#", true }, [ST_FRAME] = { "FRAME", false }, [ST_WHERE] = { "MODULE", false },
	};
	stk_vtable_free(t);
	stk_vtable_init(t, cols, ST_COLS, ST_DEPTH);
	t->sort_reverse = true; /* the leaf (0) on top */
}

static int add_frame(struct stk_vtable *t, size_t depth, const struct stk_frame *f)
{
	char num[16], name[512], where[256];
	double nums[ST_COLS] = { [ST_DEPTH] = (double)depth };
	const char *mod = f->module;

	snprintf(num, sizeof(num), "%zu", depth);
	if (f->symbol)
		snprintf(name, sizeof(name), "%s", f->symbol);
	else
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64, f->address);
	if (f->kernel)
		snprintf(where, sizeof(where), "[kernel%s%s]", mod ? " " : "", mod ? mod : "");
	else if (f->file && f->line)
		snprintf(where, sizeof(where), "%s:%" PRIu32 " (%s)", f->file, f->line,
			 mod && strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod ? mod : "?");
	else
		snprintf(where, sizeof(where), "%s", mod ? mod : "");
	const char *cells[ST_COLS] = { num, name, where };
	return stk_vtable_add(t, num, cells, nums);
}

int stk_top_stack_fill(struct stk_vtable *t, const struct stk_stack_list *l)
{
	size_t depth = 0;

	stk_vtable_clear(t);
	if (l->n) {
		const struct stk_stack *s = &l->stacks[0];

		for (size_t i = 0; i < s->n_kernel; i++)
			if (add_frame(t, depth++, &s->kernel[i]))
				return -1;
		for (size_t i = 0; i < s->n_user; i++)
			if (add_frame(t, depth++, &s->user[i]))
				return -1;
	}
	return stk_vtable_finish(t);
}

/* The host's threads, from /proc/loadavg's "running/total" (0: unknown). */
static long host_threads(void)
{
	char text[128];
	long running, total;

	if (stk_read_text("/proc/loadavg", text, sizeof(text)) ||
	    sscanf(text, "%*s %*s %*s %ld/%ld", &running, &total) != 2)
		return 0;
	return total;
}

void stk_top_host_line(const struct stk_top_window *w, bool live, char *buf, size_t len)
{
	long host = live ? host_threads() : 0;
	int at = host ? snprintf(buf, len, "Threads %ld on the host; shown %zu", host, w->counted)
		      : snprintf(buf, len, "Threads shown %zu", w->counted);
	const char *sep = ": ";

	for (int s = 0; s < STK_TSTATE_COUNT && at > 0 && (size_t)at < len; s++) {
		if (!w->states[s])
			continue;
		at += snprintf(buf + at, len - (size_t)at, "%s%s %zu", sep, stk_tstate_name((enum stk_tstate)s),
			       w->states[s]);
		sep = ", ";
	}
}
