#include "core/threads/threads_proc.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/threads/thread_idmap.h"
#include "core/threads/thread_procfs.h"

#define PF_KTHREAD 0x00200000UL

struct stk_threads_proc {
	char root[256];
	uint32_t *pids;
	size_t n_pids;
	uint32_t skip_tgid;
	struct stk_idmap *schedstat; /* tid -> struct stk_run_split */
};

struct stk_threads_proc *stk_threads_proc_new(const char *proc_root, const uint32_t *pids, size_t n_pids,
					      uint32_t skip_tgid)
{
	struct stk_threads_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	snprintf(p->root, sizeof(p->root), "%s", proc_root);
	p->skip_tgid = skip_tgid;
	p->schedstat = stk_idmap_new(sizeof(struct stk_run_split), NULL);
	if (n_pids) {
		p->pids = malloc(n_pids * sizeof(*pids));
		if (p->pids) {
			memcpy(p->pids, pids, n_pids * sizeof(*pids));
			p->n_pids = n_pids;
		}
	}
	if (!p->schedstat || (n_pids && !p->pids)) {
		stk_threads_proc_free(p);
		return NULL;
	}
	return p;
}

void stk_threads_proc_free(struct stk_threads_proc *p)
{
	if (!p)
		return;
	stk_idmap_free(p->schedstat);
	free(p->pids);
	free(p);
}

int stk_thread_read_proc(const char *proc_root, uint32_t tgid, uint32_t tid, struct stk_thread *t)
{
	char path[320], text[1024], letter;
	unsigned long flags;

	snprintf(path, sizeof(path), "%s/%u/task/%u/stat", proc_root, tgid, tid);
	if (stk_read_small_file(path, text, sizeof(text)) < 0 ||
	    stk_parse_task_stat(text, t->comm, &letter, &flags) ||
	    stk_tstate_from_letter(letter, &t->state))
		return -1;
	t->tid = tid;
	t->tgid = tgid;
	t->kthread = (flags & PF_KTHREAD) != 0;
	t->syscall = t->kthread ? STK_TSYS_NONE : STK_TSYS_UNKNOWN;
	if (t->state != STK_TSTATE_RUN && !t->kthread && t->state != STK_TSTATE_ZOMBIE) {
		snprintf(path, sizeof(path), "%s/%u/task/%u/syscall", proc_root, tgid, tid);
		if (stk_read_small_file(path, text, sizeof(text)) > 0)
			stk_parse_task_syscall(text, t->args, &t->syscall);
	}
	return 0;
}

/* R in /proc is RUN or RUNQ: schedstat's times split them (stk_run_split_on_cpu). */
static void split_runnable(struct stk_threads_proc *p, struct stk_thread *t)
{
	char path[320], text[128];
	uint64_t run, wait;
	bool created;

	snprintf(path, sizeof(path), "%s/%u/task/%u/schedstat", p->root, t->tgid, t->tid);
	if (stk_read_small_file(path, text, sizeof(text)) < 0 || stk_parse_schedstat(text, &run, &wait))
		return;
	struct stk_run_split *split = stk_idmap_put(p->schedstat, t->tid, &created);
	if (split && !stk_run_split_on_cpu(split, run, wait))
		t->state = STK_TSTATE_RUNQ;
}

static void walk_process(const char *root, uint32_t tgid, stk_thread_visit visit, void *ctx)
{
	char path[300];
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%u/task", root, tgid);
	DIR *d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);
		if (!*end && tid && visit(ctx, tgid, (uint32_t)tid))
			break;
	}
	closedir(d);
}

int stk_proc_walk_threads(const char *root, const uint32_t *pids, size_t n_pids, uint32_t skip_tgid,
			  stk_thread_visit visit, void *ctx)
{
	if (n_pids) {
		for (size_t i = 0; i < n_pids; i++)
			walk_process(root, pids[i], visit, ctx);
		return 0;
	}
	DIR *d = opendir(root);
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		unsigned long tgid = strtoul(de->d_name, &end, 10);
		if (*end || !tgid || tgid == skip_tgid)
			continue;
		walk_process(root, (uint32_t)tgid, visit, ctx);
	}
	closedir(d);
	return 0;
}

struct pass {
	struct stk_threads_proc *p;
	struct stk_thread_batch *b;
};

static int visit_thread(void *ctx, uint32_t tgid, uint32_t tid)
{
	struct pass *pass = ctx;
	struct stk_thread *t = stk_thread_batch_add(pass->b);

	if (!t)
		return -1;
	if (stk_thread_read_proc(pass->p->root, tgid, tid, t)) {
		pass->b->n--; /* exited meanwhile */
		return 0;
	}
	if (t->state == STK_TSTATE_RUN)
		split_runnable(pass->p, t);
	return 0;
}

int stk_threads_proc_sample(struct stk_threads_proc *p, struct stk_thread_batch *b)
{
	struct pass pass = { p, b };
	int ret = stk_proc_walk_threads(p->root, p->pids, p->n_pids, p->skip_tgid, visit_thread, &pass);

	stk_idmap_sweep(p->schedstat);
	return ret;
}
