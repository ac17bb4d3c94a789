#include "core/threads/bpf/threads_iter.h"

/*
 * threadstate's task iterator source (bpf/threadstate.bpf.c): each pass
 * creates an iterator instance from the link and reads every thread's
 * record with read(); the kernel walks all tasks once per pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/bpf/bpf_object.h"
#include "core/bpf/iter_read.h"
#include "core/ladder/precondition.h"
#include "core/threads/syscall_table.h"
#include "core/threads/stack_fold.h"
#include "stk.skel.h"
#include "bpf/threadstate_types.h"

/* Frames enough for the wchan (the scheduler's own frames come first). */
#define WCHAN_DEPTH 12

struct threads_iter {
	struct stk_bpf *skel;
	bool owns_skel; /* loaded here (threadstate), or the caller's (stk record) */
	struct bpf_link *link;
	struct bpf_link *enter_link; /* sys_enter times; NULL when it could not attach */
	const uint32_t *pids;
	size_t n_pids;
	struct stk_iter_buf buf;
};

static bool wanted(const struct threads_iter *it, uint32_t tgid)
{
	if (!it->n_pids)
		return true;
	for (size_t i = 0; i < it->n_pids; i++)
		if (it->pids[i] == tgid)
			return true;
	return false;
}

static int add_record(struct threads_iter *it, const struct stk_ts_iter_record *r, struct stk_thread_batch *b)
{
	struct stk_thread *t;

	if (!wanted(it, r->tgid))
		return 0;
	if (!(t = stk_thread_batch_add(b)))
		return -1;
	t->tid = r->tid;
	t->tgid = r->tgid;
	t->state = stk_tstate_from_task(r->state, r->exit_state, (r->flags & STK_TS_F_ON_CPU) != 0);
	t->kthread = (r->flags & STK_TS_F_KTHREAD) != 0;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	if (t->kthread)
		t->syscall = STK_TSYS_NONE;
	else if (r->flags & STK_TS_F_REGS) {
		t->syscall = r->syscall_nr >= 0 ? (int32_t)r->syscall_nr : STK_TSYS_NONE;
		memcpy(t->args, r->args, sizeof(t->args));
		if (r->enter_ns) /* entered while stk watched */
			t->syscall_ns = b->mono_ns > (int64_t)r->enter_ns ? b->mono_ns - (int64_t)r->enter_ns : 0;
	}
	if (r->kstack_bytes > 0) {
		size_t n = (size_t)r->kstack_bytes / sizeof(uint64_t);
		t->kaddrs = r->kstack; /* symbolized only if the thread is kept */
		t->n_kaddrs = n > STK_TS_KSTACK_MAX ? STK_TS_KSTACK_MAX : n;
	}
	return 0;
}

static int iter_sample(void *impl, struct stk_thread_batch *b)
{
	struct threads_iter *it = impl;
	int ret = stk_iter_read(it->link, &it->buf);

	/* The buffer is malloc-aligned and records are multiples of 8 bytes: used in place. */
	for (size_t off = 0; off + sizeof(struct stk_ts_iter_record) <= it->buf.len;
	     off += sizeof(struct stk_ts_iter_record))
		if (add_record(it, (const struct stk_ts_iter_record *)(it->buf.data + off), b))
			return -1;
	return ret;
}

static void iter_free(void *impl)
{
	struct threads_iter *it = impl;

	bpf_link__destroy(it->enter_link);
	bpf_link__destroy(it->link);
	if (it->owns_skel)
		stk_bpf__destroy(it->skel);
	stk_iter_buf_free(&it->buf);
	free(it);
}

const char *const stk_threads_iter_maps[] = { "ts_iter_config", "ts_iter_scratch", "ts_iter_enter", NULL };

/* The configuration into the loaded object, the iterator (and with syscall_time sys_enter) attached. 0, or -1 with why. */
static int configure_and_attach(struct threads_iter *it, const struct stk_tsource_request *req, const char *program,
				char *why, size_t len)
{
	struct stk_ts_iter_config cfg = {
		.kstack_depth = req->kernel_stacks ? STK_TS_KSTACK_MAX : WCHAN_DEPTH,
		.skip_tgid = req->self_tgid,
		.all = req->all,
	};
	uint32_t zero = 0;

	for (int nr = 0; nr < STK_TS_SYSCALL_BITS; nr++)
		if (stk_syscall_waits_for_io(nr))
			cfg.io_wait[nr / 64] |= 1ULL << (nr % 64);
	if (bpf_map__update_elem(it->skel->maps.ts_iter_config, &zero, sizeof(zero), &cfg, sizeof(cfg), 0)) {
		snprintf(why, len, "writing the configuration failed: %s", strerror(errno));
		return -1;
	}
	it->link = bpf_program__attach_iter(bpf_object__find_program_by_name(it->skel->obj, program), NULL);
	if (!it->link) {
		snprintf(why, len, "attaching the task iterator failed: %s", strerror(errno));
		return -1;
	}
	/* A cost on every syscall of the host, so only on request; only syscall_us depends on it. */
	if (req->syscall_time &&
	    !(it->enter_link = bpf_program__attach_raw_tracepoint(
		      bpf_object__find_program_by_name(it->skel->obj, "stk_ts_iter_sys_enter"), "sys_enter"))) {
		snprintf(why, len, "--syscall-time: attaching raw_tp sys_enter failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Loads and attaches one of the two iterator programs. 0, or -1 with why set. */
static int try_program(struct threads_iter *it, const struct stk_tsource_request *req, const char *program,
		       char *why, size_t len)
{
	const char *programs[] = { program, "stk_ts_iter_sys_enter", NULL };
	struct stk_bpf_selection sel = { .programs = programs, .maps = stk_threads_iter_maps,
					 .btf_custom_path = req->btf_custom_path };
	char err[256];
	int ret;

	it->owns_skel = true;
	it->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!it->skel) {
		snprintf(why, len, "%s", err);
		return -1;
	}
	ret = stk_bpf__load(it->skel);
	if (ret) {
		snprintf(why, len, "%s: load failed: %s", program, strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	if (configure_and_attach(it, req, program, why, len) == 0)
		return 0;
fail:
	bpf_link__destroy(it->enter_link);
	bpf_link__destroy(it->link);
	it->link = it->enter_link = NULL;
	stk_bpf__destroy(it->skel);
	it->skel = NULL;
	return -1;
}

/* bpf_task_pt_regs() needs 5.15; before, the registers are found from the task's stack. */
static const char *const programs[] = { "stk_ts_iter", "stk_ts_iter_stack_regs" };

/* The first program that loads and attaches, left loaded in it; NULL with why (both reasons). */
static const char *first_program(struct threads_iter *it, const struct stk_tsource_request *req, char *why,
				 size_t len)
{
	char first[384], second[384];

	if (try_program(it, req, programs[0], first, sizeof(first)) == 0)
		return programs[0];
	if (try_program(it, req, programs[1], second, sizeof(second)) == 0)
		return programs[1];
	snprintf(why, len, "%s; %s", first, second);
	return NULL;
}

int stk_threads_iter_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			  size_t len)
{
	struct threads_iter *it;
	const struct stk_precondition_env env = { .kernel_btf = req->kernel_btf, .root = "" };

	if (stk_precondition_check(STK_FEATURE_TASK_ITER, &env, why, len))
		return -1;
	if (!(it = calloc(1, sizeof(*it)))) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	it->pids = req->pids;
	it->n_pids = req->n_pids;
	if (!first_program(it, req, why, len)) {
		free(it);
		return -1;
	}
	out->impl = it;
	out->sample = iter_sample;
	out->free = iter_free;
	return 0;
}

const char *stk_threads_iter_choose(const struct stk_tsource_request *req, char *why, size_t len)
{
	const struct stk_precondition_env env = { .kernel_btf = req->kernel_btf, .root = "" };
	struct threads_iter it = { 0 };
	const char *program;

	if (stk_precondition_check(STK_FEATURE_TASK_ITER, &env, why, len))
		return NULL;
	program = first_program(&it, req, why, len);
	bpf_link__destroy(it.enter_link);
	bpf_link__destroy(it.link);
	stk_bpf__destroy(it.skel);
	return program;
}

int stk_threads_iter_open_in(const struct stk_tsource_request *req, struct stk_bpf *skel, const char *program,
			     struct stk_tsource_impl *out, char *why, size_t len)
{
	struct threads_iter *it = calloc(1, sizeof(*it));

	if (!it) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	*it = (struct threads_iter){ .skel = skel, .pids = req->pids, .n_pids = req->n_pids };
	if (configure_and_attach(it, req, program, why, len)) {
		iter_free(it);
		return -1;
	}
	out->impl = it;
	out->sample = iter_sample;
	out->free = iter_free;
	return 0;
}
