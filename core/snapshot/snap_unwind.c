#include "core/snapshot/snap_unwind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "core/sym/symbolize.h"
#include "core/threads/thread_procfs.h"

#define PAGE 4096
/* Pages read past a copy at most: deeper chains end there. */
#define MAX_PAGES 64

struct page {
	uint64_t addr;
	bool ok;
	uint8_t data[PAGE];
};

struct stk_snap_unwinder {
	struct stk_unwinder *unwinder;
	char proc_root[256];
	const struct stk_snap_thread *cur;
	struct page *pages; /* MAX_PAGES, for the thread being unwound */
	size_t n_pages;
	size_t read_more, ran;
};

static const char ran_stop[] = "needed stack beyond the copy, and the thread ran before it could be read";
static const char no_regs[] = "no user registers";

struct stk_snap_unwinder *stk_snap_unwinder_new(struct stk_symbolizer *sym, const char *proc_root)
{
	struct stk_snap_unwinder *u = calloc(1, sizeof(*u));
	/* the symbolizer's process table keeps the unwinder's session per process */
	struct stk_unwind_source src = stk_symbolizer_unwind_source(sym);

	if (!u || !(u->unwinder = stk_unwinder_new(&src)) ||
	    !(u->pages = calloc(MAX_PAGES, sizeof(*u->pages)))) {
		stk_snap_unwinder_free(u);
		return NULL;
	}
	snprintf(u->proc_root, sizeof(u->proc_root), "%s", proc_root);
	return u;
}

void stk_snap_unwinder_free(struct stk_snap_unwinder *u)
{
	if (!u)
		return;
	stk_unwinder_free(u->unwinder);
	free(u->pages);
	free(u);
}

void stk_snap_unwinder_prepare(struct stk_snap_unwinder *u, uint32_t pid)
{
	stk_unwinder_prepare(u->unwinder, (pid_t)pid);
}

/* A word of the thread's memory beyond its copy, a page at a time. */
static bool read_more(void *ctx, uint64_t addr, uint64_t *word)
{
	struct stk_snap_unwinder *u = ctx;
	uint64_t base = addr & ~(uint64_t)(PAGE - 1);
	struct page *pg = NULL;

	if ((addr & 7) || addr - base > PAGE - sizeof(*word))
		return false;
	for (size_t i = 0; i < u->n_pages && !pg; i++)
		if (u->pages[i].addr == base)
			pg = &u->pages[i];
	if (!pg) {
		if (u->n_pages == MAX_PAGES)
			return false;
		pg = &u->pages[u->n_pages++];
		pg->addr = base;
		struct iovec local = { pg->data, PAGE }, remote = { (void *)(uintptr_t)base, PAGE };
		pg->ok = process_vm_readv((pid_t)u->cur->tid, &local, 1, &remote, 1, 0) == PAGE;
	}
	if (!pg->ok)
		return false;
	memcpy(word, pg->data + (addr - base), sizeof(*word));
	return true;
}

/* Whether t has stayed off CPU since it was taken: its switch count unchanged and its state not R. */
static bool still_as_taken(const struct stk_snap_unwinder *u, const struct stk_snap_thread *t)
{
	char path[320], text[4096], comm[16], letter;
	unsigned long flags;
	uint64_t switches;

	if (!t->switches_known)
		return false;
	snprintf(path, sizeof(path), "%s/%u/task/%u/status", u->proc_root, t->tgid, t->tid);
	if (stk_read_small_file(path, text, sizeof(text)) <= 0 || stk_parse_status_switches(text, &switches) ||
	    switches != t->switches)
		return false;
	snprintf(path, sizeof(path), "%s/%u/task/%u/stat", u->proc_root, t->tgid, t->tid);
	return stk_read_small_file(path, text, sizeof(text)) > 0 && stk_parse_task_stat(text, comm, &letter, &flags) == 0 &&
	       letter != 'R';
}

void stk_snap_unwind(struct stk_snap_unwinder *u, const struct stk_snap_thread *t, struct stk_unwind_result *r)
{
	struct stk_unwind_input in = {
		.pid = (pid_t)t->tgid, .tid = (pid_t)t->tid, .regs = t->regs, .n_regs = STK_UREGS_N,
		.sp = t->regs[STK_UREG_SP], .stack = t->stack, .stack_len = t->stack_len,
		.regs_known = t->regs_known,
		/* Memory read later is the thread's as taken only if it is blocked still: never a running one's. */
		.read_more = t->switches_known && t->state != STK_TSTATE_RUN ? read_more : NULL, .read_ctx = u,
	};

	r->n = 0;
	if (!t->has_regs) {
		r->stop = t->no_user ? t->no_user : no_regs;
		return;
	}
	u->cur = t;
	u->n_pages = 0;
	stk_unwind(u->unwinder, &in, r);
	if (!u->n_pages)
		return;
	u->read_more++;
	if (still_as_taken(u, t))
		return;
	u->ran++;
	in.read_more = NULL;
	stk_unwind(u->unwinder, &in, r);
	r->stop = ran_stop;
}

void stk_snap_unwind_stats(const struct stk_snap_unwinder *u, size_t *read_more_n, size_t *ran)
{
	*read_more_n = u->read_more;
	*ran = u->ran;
}
