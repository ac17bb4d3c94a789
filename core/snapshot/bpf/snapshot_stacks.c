#include "core/snapshot/bpf/snapshot_stacks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/snapshot/snap_unwind.h"
#include "core/threads/stack_fold.h"
#include "core/threads/thread_idmap.h"

#define MAX_FRAMES 127

struct stk_snap_stacks {
	struct stk_idmap *by_tid; /* tid -> char * (folded, owned) */
	const char *mech;
	size_t count;
};

static void free_folded(void *value)
{
	free(*(char **)value);
}

static int keep_thread(struct stk_snap_stacks *s, struct stk_snap_unwinder *u, struct stk_symbolizer *sym,
		       const struct stk_snap_thread *t)
{
	uint64_t ips[MAX_FRAMES];
	unsigned long long addrs[MAX_FRAMES];
	struct stk_unwind_result r = { .ips = ips, .max = MAX_FRAMES };
	bool created;
	char **slot;

	if (t->kthread || !t->has_regs)
		return 0;
	stk_snap_unwind(u, t, &r);
	if (!r.n)
		return 0;
	for (size_t i = 0; i < r.n; i++)
		addrs[i] = ips[i];
	if (!(slot = stk_idmap_put(s->by_tid, t->tid, &created)))
		return -1;
	free(*slot);
	*slot = stk_fold_addrs(sym, t->tgid, addrs, r.n, true, NULL, 0);
	s->count += *slot != NULL;
	return 0;
}

struct stk_snap_stacks *stk_snap_stacks_take(const struct stk_snap_request *req, struct stk_symbolizer *sym,
					     char *err, size_t len)
{
	struct stk_snap_stacks *s = calloc(1, sizeof(*s));
	struct stk_snapper *snapper = NULL;
	struct stk_snap_unwinder *u = NULL;
	struct stk_snap snap = { 0 };
	struct stk_snap_stats st;

	if (!s || !(s->by_tid = stk_idmap_new(sizeof(char *), free_folded)) ||
	    !(u = stk_snap_unwinder_new(sym, "/proc"))) {
		snprintf(err, len, "out of memory");
		goto fail;
	}
	if (!(snapper = stk_snapper_open(req, err, len)))
		goto fail;
	s->mech = stk_rung_by_id(STK_ATTACH_THREAD_SNAPSHOT, (int)stk_snapper_mech(snapper))->name;
	if (stk_snapper_take(snapper, &snap, &st)) {
		snprintf(err, len, "the snapshot failed: %s", strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < snap.n; i++) {
		if (keep_thread(s, u, sym, &snap.threads[i])) {
			snprintf(err, len, "out of memory");
			goto fail;
		}
	}
	stk_snap_free(&snap);
	stk_snap_unwinder_free(u);
	stk_snapper_free(snapper);
	return s;
fail:
	stk_snap_free(&snap);
	stk_snap_unwinder_free(u);
	stk_snapper_free(snapper);
	stk_snap_stacks_free(s);
	return NULL;
}

char *stk_snap_stacks_user(struct stk_snap_stacks *s, uint32_t tid)
{
	char **slot = s ? stk_idmap_get(s->by_tid, tid) : NULL;

	return slot && *slot ? strdup(*slot) : NULL;
}

size_t stk_snap_stacks_count(const struct stk_snap_stacks *s)
{
	return s ? s->count : 0;
}

const char *stk_snap_stacks_mech(const struct stk_snap_stacks *s)
{
	return s ? s->mech : "";
}

void stk_snap_stacks_free(struct stk_snap_stacks *s)
{
	if (!s)
		return;
	stk_idmap_free(s->by_tid);
	free(s);
}
