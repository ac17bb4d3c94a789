#include "core/snapshot/bpf/snap_iter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/pmp_types.h"
#include "core/bpf/bpf_object.h"
#include "core/bpf/iter_read.h"
#include "core/ladder/precondition.h"
#include "stk.skel.h"

struct snap_iter {
	struct stk_bpf *skel;
	struct bpf_link *link;
	struct stk_pmp_config cfg;
	struct stk_iter_buf buf;
};

/* The filter map holds exactly ids (n 0: the pass takes every thread). 0 or -1. */
static int set_filter(struct snap_iter *it, uint32_t filter, const uint32_t *ids, size_t n)
{
	int fd = bpf_map__fd(it->skel->maps.pmp_filter);
	uint32_t key, zero = 0;
	uint8_t one = 1;

	if (n > STK_PMP_FILTER_MAX) {
		errno = E2BIG;
		return -1;
	}
	while (bpf_map_get_next_key(fd, NULL, &key) == 0)
		if (bpf_map_delete_elem(fd, &key))
			return -1;
	for (size_t i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, &ids[i], &one, BPF_ANY))
			return -1;
	it->cfg.filter = n ? filter : STK_PMP_FILTER_ALL;
	return bpf_map__update_elem(it->skel->maps.pmp_config, &zero, sizeof(zero), &it->cfg, sizeof(it->cfg), 0);
}

/* Why a record has no user stack, or NULL. */
static const char *no_user(const struct stk_pmp_record *r, const struct stk_snap_thread *t)
{
	if (t->kthread)
		return "kernel thread";
	if (t->state == STK_TSTATE_ZOMBIE)
		return "exited (a zombie)";
	if (!(r->flags & (STK_PMP_F_REGS | STK_PMP_F_ON_CPU)))
		return "its user registers could not be read";
	return NULL;
}

/* One record into a snapshot thread. 0, or -1 when out of memory. */
static int add_record(const struct stk_pmp_record *r, const uint8_t *stack, struct stk_snap *out)
{
	struct stk_snap_thread *t = stk_snap_add(out);
	size_t nk = r->kstack_bytes > 0 ? (size_t)r->kstack_bytes / sizeof(uint64_t) : 0;

	if (!t)
		return -1;
	t->tid = r->tid;
	t->tgid = r->tgid;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->state = stk_tstate_from_task(r->state, r->exit_state, (r->flags & STK_PMP_F_ON_CPU) != 0);
	t->kthread = (r->flags & STK_PMP_F_KTHREAD) != 0;
	t->how = "task_iter_copy";
	t->switches = r->switches;
	t->switches_known = true;
	if (r->flags & STK_PMP_F_ON_CPU)
		t->pending |= STK_SNAP_RUNNING;
	if (r->flags & STK_PMP_F_RACED)
		t->pending |= STK_SNAP_RACED;
	t->no_user = no_user(r, t);
	if (nk > STK_PMP_KSTACK_MAX)
		nk = STK_PMP_KSTACK_MAX;
	if (nk && (t->kernel = malloc(nk * sizeof(*t->kernel)))) {
		memcpy(t->kernel, r->kstack, nk * sizeof(*t->kernel));
		t->n_kernel = nk;
	}
	if (!(r->flags & STK_PMP_F_REGS) || t->kthread)
		return 0;
	t->has_regs = true;
	memcpy(t->regs, r->regs, sizeof(t->regs));
	if (r->stack_bytes && (t->stack = malloc(r->stack_bytes))) {
		memcpy(t->stack, stack, r->stack_bytes);
		t->stack_len = r->stack_bytes;
	}
	return 0;
}

static int iter_take(void *impl, const struct stk_snap_want *want, struct stk_snap *out)
{
	struct snap_iter *it = impl;
	int ret = want->n_tids ? set_filter(it, STK_PMP_FILTER_TIDS, want->tids, want->n_tids)
			       : set_filter(it, STK_PMP_FILTER_TGIDS, want->pids, want->n_pids);

	if (ret)
		return -1;
	ret = stk_iter_read(it->link, &it->buf);
	/* Records are multiples of 8 bytes in a malloc'd buffer: read in place. */
	for (size_t off = 0; off + sizeof(struct stk_pmp_record) <= it->buf.len;) {
		const struct stk_pmp_record *r = (const void *)(it->buf.data + off);

		if (r->size < sizeof(*r) || r->size > it->buf.len - off || r->stack_bytes > r->size - sizeof(*r))
			break; /* never written so: stop rather than misread */
		if (add_record(r, (const uint8_t *)(r + 1), out))
			return -1;
		off += r->size;
	}
	return ret;
}

static void iter_free(void *impl)
{
	struct snap_iter *it = impl;

	if (!it)
		return;
	bpf_link__destroy(it->link);
	stk_bpf__destroy(it->skel);
	stk_iter_buf_free(&it->buf);
	free(it);
}

int stk_snap_iter_open(const struct stk_snap_iter_request *req, struct stk_snap_rung *rung, char *why, size_t len)
{
	static const char *const programs[] = { "stk_pmp_iter", NULL };
	static const char *const maps[] = { "pmp_config", "pmp_filter", "pmp_scratch", NULL };
	const struct stk_bpf_selection sel = { .programs = programs, .maps = maps,
					       .btf_custom_path = req->btf_custom_path };
	const struct stk_precondition_env env = { .kernel_btf = req->kernel_btf, .root = "" };
	struct snap_iter *it;
	char err[256];
	int ret;

	if (stk_precondition_check(STK_FEATURE_TASK_ITER_COPY, &env, why, len))
		return -1;
	if (!(it = calloc(1, sizeof(*it)))) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	it->cfg.skip_tgid = req->skip_tgid;
	it->cfg.stack_bytes = req->stack_bytes < STK_PMP_STACK_MAX ? req->stack_bytes : STK_PMP_STACK_MAX;
	if (!(it->skel = stk_bpf_open_selected(&sel, err, sizeof(err)))) {
		snprintf(why, len, "%s", err);
		goto fail;
	}
	ret = stk_bpf__load(it->skel);
	if (ret) {
		snprintf(why, len, "stk_pmp_iter: load failed: %s", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	it->link = bpf_program__attach_iter(it->skel->progs.stk_pmp_iter, NULL);
	if (!it->link) {
		snprintf(why, len, "attaching the sleepable task iterator failed: %s", strerror(errno));
		goto fail;
	}
	*rung = (struct stk_snap_rung){ .take = iter_take, .free = iter_free, .impl = it };
	return 0;
fail:
	iter_free(it);
	return -1;
}
