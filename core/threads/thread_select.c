/* Threads kept from a sample pass: see thread_select.h. */
#include "core/threads/thread_select.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/threads/source.h"
#include "core/threads/thread_active.h"
#include "core/threads/thread_enrich.h"
#include "core/threads/thread_idmap.h"

struct stk_thread_selector {
	struct stk_thread_select_opts o;
	struct stk_symbolizer *sym;
	struct stk_thread_enrich *enrich;
	struct stk_idmap *cgroup_tids;
};

struct stk_thread_selector *stk_thread_selector_new(const struct stk_thread_select_opts *o, struct stk_symbolizer *sym)
{
	struct stk_thread_selector *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->sym = sym;
	if (!(s->enrich = stk_thread_enrich_new("/proc")) || !(s->cgroup_tids = stk_idmap_new(1, NULL))) {
		stk_thread_selector_free(s);
		return NULL;
	}
	return s;
}

void stk_thread_selector_free(struct stk_thread_selector *s)
{
	if (!s)
		return;
	stk_thread_enrich_free(s->enrich);
	stk_idmap_free(s->cgroup_tids);
	free(s);
}

/* The tids in the cgroup, read anew (threads come and go). */
static void read_cgroup(struct stk_thread_selector *s)
{
	char path[4200], line[32];
	FILE *f;

	stk_idmap_clear(s->cgroup_tids);
	snprintf(path, sizeof(path), "%s/cgroup.threads", s->o.cgroup);
	if (!(f = fopen(path, "re"))) {
		snprintf(path, sizeof(path), "%s/tasks", s->o.cgroup);
		f = fopen(path, "re");
	}
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		bool created;

		stk_idmap_put(s->cgroup_tids, (uint32_t)strtoul(line, NULL, 10), &created);
	}
	fclose(f);
}

void stk_thread_select(struct stk_thread_selector *s, struct stk_thread_batch *b)
{
	if (s->o.cgroup)
		read_cgroup(s);
	for (size_t i = 0; i < b->n; i++) {
		struct stk_thread *t = &b->threads[i];

		t->keep = !s->o.cgroup || stk_idmap_get(s->cgroup_tids, t->tid);
		if (!t->keep)
			continue;
		if (!s->o.all) {
			if (t->syscall == STK_TSYS_UNKNOWN && t->state == STK_TSTATE_SLEEP && !t->kthread)
				stk_thread_read_syscall(s->enrich, t);
			if (stk_thread_active_needs_file(t))
				stk_thread_read_fd_name(s->enrich, t);
			t->keep = stk_thread_is_active(t);
		}
		if (!t->keep)
			continue;
		if (t->n_kaddrs && !t->kstack)
			t->kstack = stk_fold_addrs(s->sym, 0, t->kaddrs, t->n_kaddrs, s->o.kernel_stacks, t->wchan,
						   sizeof(t->wchan));
		stk_thread_enrich(s->enrich, t, s->o.kernel_stacks);
	}
	stk_thread_enrich_end_pass(s->enrich);
}
