#include "core/threads/bpf/threads_tp.h"

/*
 * threadstate's tracepoint source (bpf/threadstate_tp.bpf.c): the
 * tracepoints keep each thread's state in ts_tp_threads. A pass reads the
 * map (the threads that had an event since attach) and joins it with what
 * /proc said of every thread when it was first seen: a thread with no event
 * since then cannot have changed state. /proc is walked again once a second
 * to forget the threads that exited and learn the identity of new ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/bpf/bpf_object.h"
#include "core/threads/thread_active.h"
#include "core/threads/thread_idmap.h"
#include "core/threads/thread_procfs.h"
#include "core/threads/threads_proc.h"
#include "core/threads/stack_fold.h"
#include "core/base/tracefs.h"
#include "stk.skel.h"
#include "bpf/threadstate_types.h"

#define STACK_DEPTH 127
#define STACK_ENTRIES 16384
#define PROC_WALK_NS 1000000000LL

static const struct {
	const char *program, *category, *event;
} tracepoints[] = {
	{ "stk_ts_tp_switch", "sched", "sched_switch" },
	{ "stk_ts_tp_wakeup", "sched", "sched_wakeup" },
	{ "stk_ts_tp_wakeup_new", "sched", "sched_wakeup_new" },
	{ "stk_ts_tp_sys_enter", "raw_syscalls", "sys_enter" },
	{ "stk_ts_tp_sys_exit", "raw_syscalls", "sys_exit" },
};
#define N_TRACEPOINTS (sizeof(tracepoints) / sizeof(tracepoints[0]))

struct threads_tp {
	struct stk_bpf *skel;
	struct bpf_link *links[N_TRACEPOINTS];
	struct stk_idmap *from_proc; /* tid -> struct stk_thread read from /proc when first seen */
	struct stk_idmap *events;    /* this pass: tid -> struct stk_ts_tp_thread from the map */
	int64_t last_walk_ns;
	struct stk_symbolizer *sym;
	char *(*user_stack_by_hash)(void *ctx, uint32_t pid, uint64_t hash);
	char *(*user_stack_at_start)(void *ctx, uint32_t tid);
	void *user_stack_ctx;
	const uint32_t *pids;
	size_t n_pids;
	uint32_t self_tgid;
	bool kernel_stacks, user_stacks, all;
	int threads_fd, stacks_fd;
	unsigned long long addrs[STACK_DEPTH]; /* as the stack map holds them (__u64) */
};

static void add_stack(struct threads_tp *tp, int32_t id, uint32_t pid, char **out, char *wchan, size_t wlen)
{
	size_t n = 0;

	if (id < 0 || bpf_map_lookup_elem(tp->stacks_fd, &id, tp->addrs))
		return;
	while (n < STACK_DEPTH && tp->addrs[n])
		n++;
	*out = stk_fold_addrs(tp->sym, pid, tp->addrs, n, true, wchan, wlen);
}

static void from_map(struct threads_tp *tp, const struct stk_ts_tp_thread *e, struct stk_thread *t, int64_t mono)
{
	static const enum stk_tstate states[] = {
		[STK_TS_RUN] = STK_TSTATE_RUN,         [STK_TS_RUNQ] = STK_TSTATE_RUNQ,
		[STK_TS_SLEEP] = STK_TSTATE_SLEEP,     [STK_TS_DISK] = STK_TSTATE_DISK,
		[STK_TS_STOPPED] = STK_TSTATE_STOPPED, [STK_TS_ZOMBIE] = STK_TSTATE_ZOMBIE,
		[STK_TS_IDLE] = STK_TSTATE_IDLE,
	};

	t->state = e->state <= STK_TS_IDLE ? states[e->state] : STK_TSTATE_SLEEP;
	if (e->comm[0]) {
		memcpy(t->comm, e->comm, sizeof(t->comm));
		t->comm[sizeof(t->comm) - 1] = '\0';
	}
	if (t->kthread) {
		t->syscall = STK_TSYS_NONE;
	} else if (e->syscall_nr >= 0) {
		t->syscall = e->syscall_nr;
		memcpy(t->args, e->args, sizeof(t->args));
		t->syscall_ns = mono - (int64_t)e->enter_ns;
		if (t->syscall_ns < 0)
			t->syscall_ns = 0;
	} else {
		t->syscall = e->syscall_nr; /* none, or unknown: entered before attach */
	}
	if (t->state != STK_TSTATE_RUN) {
		if (tp->kernel_stacks)
			add_stack(tp, e->kstack_id, 0, &t->kstack, t->wchan, sizeof(t->wchan));
		if (tp->user_stacks && !t->kthread && e->ustack_hash && tp->user_stack_by_hash)
			t->ustack = tp->user_stack_by_hash(tp->user_stack_ctx, t->tgid, e->ustack_hash);
		else if (tp->user_stacks && !t->kthread)
			add_stack(tp, e->ustack_id, t->tgid, &t->ustack, NULL, 0);
	}
}

/* Walk of /proc: remembers each thread as /proc shows it when first seen. */
static int learn_thread(void *ctx, uint32_t tgid, uint32_t tid)
{
	struct threads_tp *tp = ctx;
	bool created;
	struct stk_thread *cached = stk_idmap_put(tp->from_proc, tid, &created);

	if (!cached)
		return -1;
	if (created && stk_thread_read_proc("/proc", tgid, tid, cached))
		cached->tid = 0; /* gone already: skipped until swept */
	return 0;
}

static bool wanted(const struct threads_tp *tp, uint32_t tgid)
{
	if (!tp->n_pids)
		return true;
	for (size_t i = 0; i < tp->n_pids; i++)
		if (tp->pids[i] == tgid)
			return true;
	return false;
}

/* Copies the map into tp->events (usually few: only threads that ran or woke). */
static int read_events(struct threads_tp *tp)
{
	uint32_t key, next, *prev = NULL;
	struct stk_ts_tp_thread e;
	bool created;

	stk_idmap_clear(tp->events);
	while (bpf_map_get_next_key(tp->threads_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(tp->threads_fd, &key, &e))
			continue;
		struct stk_ts_tp_thread *slot = stk_idmap_put(tp->events, key, &created);
		if (!slot)
			return -1;
		*slot = e;
	}
	return 0;
}

struct pass {
	struct threads_tp *tp;
	struct stk_thread_batch *b;
	int ret;
};

static int add_known(void *ctx, uint32_t tid, void *value)
{
	struct pass *pass = ctx;
	struct threads_tp *tp = pass->tp;
	const struct stk_thread *cached = value;
	struct stk_thread t;

	if (!cached->tid || cached->tid == tp->self_tgid || cached->tgid == tp->self_tgid ||
	    !wanted(tp, cached->tgid))
		return 0;
	t = *cached;
	struct stk_ts_tp_thread *e = stk_idmap_get(tp->events, tid);
	if (e)
		from_map(tp, e, &t, pass->b->mono_ns);
	else if (tp->user_stacks && !t.kthread && t.state != STK_TSTATE_RUN && tp->user_stack_at_start)
		t.ustack = tp->user_stack_at_start(tp->user_stack_ctx, tid); /* blocked since before the start */
	struct stk_thread *out = NULL;
	if ((!tp->all && !stk_thread_may_be_active(&t)) || !(out = stk_thread_batch_add(pass->b))) {
		free(t.kstack);
		free(t.ustack);
		if (!out && (tp->all || stk_thread_may_be_active(&t))) {
			pass->ret = -1;
			return 1;
		}
		return 0;
	}
	*out = t;
	return 0;
}

/* A thread with events that the last /proc walk did not see: new since. */
static int add_new(void *ctx, uint32_t tid, void *value)
{
	struct pass *pass = ctx;
	struct threads_tp *tp = pass->tp;
	const struct stk_ts_tp_thread *e = value;
	bool created;

	if (stk_idmap_get(tp->from_proc, tid) || !e->tgid)
		return 0;
	struct stk_thread *cached = stk_idmap_put(tp->from_proc, tid, &created);
	if (cached && stk_thread_read_proc("/proc", e->tgid, tid, cached))
		cached->tid = 0;
	return 0;
}

static int tp_sample(void *impl, struct stk_thread_batch *b)
{
	struct threads_tp *tp = impl;
	struct pass pass = { tp, b, 0 };
	if (!tp->last_walk_ns || b->mono_ns - tp->last_walk_ns >= PROC_WALK_NS) {
		if (stk_proc_walk_threads("/proc", tp->pids, tp->n_pids, tp->self_tgid, learn_thread, tp))
			return -1;
		stk_idmap_sweep(tp->from_proc);
		tp->last_walk_ns = b->mono_ns;
	}
	if (read_events(tp))
		return -1;
	stk_idmap_for_each(tp->events, add_new, &pass);
	stk_idmap_for_each(tp->from_proc, add_known, &pass);
	return pass.ret;
}

static void tp_free(void *impl)
{
	struct threads_tp *tp = impl;

	for (size_t i = 0; i < N_TRACEPOINTS; i++)
		bpf_link__destroy(tp->links[i]);
	stk_bpf__destroy(tp->skel);
	stk_idmap_free(tp->from_proc);
	stk_idmap_free(tp->events);
	free(tp);
}

/* sched_switch has a twin that captures user stacks for --unwind dwarf. */
static const char *program_of(size_t i, bool dwarf)
{
	return dwarf && i == 0 ? "stk_ts_tp_switch_dwarf" : tracepoints[i].program;
}

static int load_and_attach(struct threads_tp *tp, const struct stk_tsource_request *req, char *why, size_t len)
{
	const char *programs[N_TRACEPOINTS + 1] = { 0 };
	/* its own maps, and the stack maps (bpf/stack_maps.h) it takes stacks through */
	const char *maps[] = { "ts_tp_config", "ts_tp_threads", "stk_stacks", NULL };
	const char *dwarf_maps[] = { "ts_tp_config", "ts_tp_threads", "stk_stacks", "stk_scratch",
				     "stk_samples", "stk_sent", "stk_stats", NULL };
	bool stacks = req->kernel_stacks || req->user_stacks, dwarf = req->user_stacks && req->user_dwarf;
	struct stk_ts_tp_config cfg = {
		.kernel_stacks = req->kernel_stacks, .user_stacks = req->user_stacks, .stack_bytes = req->stack_bytes,
	};
	uint32_t zero = 0;
	int ncpu = libbpf_num_possible_cpus();
	char err[256];
	int ret;

	for (size_t i = 0; i < N_TRACEPOINTS; i++)
		programs[i] = program_of(i, dwarf);
	struct stk_bpf_selection sel = {
		.programs = programs, .maps = dwarf ? dwarf_maps : maps, .btf_custom_path = req->btf_custom_path,
	};
	if (!(tp->skel = stk_bpf_open_selected(&sel, err, sizeof(err)))) {
		snprintf(why, len, "%s", err);
		return -1;
	}
	if (bpf_map__set_max_entries(tp->skel->maps.stk_stacks, stacks ? STACK_ENTRIES : 1) ||
	    (dwarf && (ncpu < 1 || bpf_map__set_max_entries(tp->skel->maps.stk_scratch, (uint32_t)ncpu)))) {
		snprintf(why, len, "sizing the stack maps failed");
		return -1;
	}
	if ((ret = stk_bpf__load(tp->skel))) {
		snprintf(why, len, "load failed: %s", strerror(ret < 0 ? -ret : ret));
		return -1;
	}
	if (bpf_map__update_elem(tp->skel->maps.ts_tp_config, &zero, sizeof(zero), &cfg, sizeof(cfg), 0)) {
		snprintf(why, len, "writing the configuration failed: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < N_TRACEPOINTS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(tp->skel->obj, program_of(i, dwarf));
		tp->links[i] = bpf_program__attach_tracepoint(p, tracepoints[i].category, tracepoints[i].event);
		if (!tp->links[i]) {
			snprintf(why, len, "attaching %s:%s failed: %s", tracepoints[i].category, tracepoints[i].event,
				 strerror(errno));
			return -1;
		}
	}
	tp->threads_fd = bpf_map__fd(tp->skel->maps.ts_tp_threads);
	tp->stacks_fd = bpf_map__fd(tp->skel->maps.stk_stacks);
	return 0;
}

int stk_threads_tp_open(const struct stk_tsource_request *req, struct stk_tsource_impl *out, char *why,
			size_t len)
{
	const char *how;
	struct threads_tp *tp;

	if (stk_tracefs_ensure(&how, why, len))
		return -1;
	if (!(tp = calloc(1, sizeof(*tp))) || !(tp->from_proc = stk_idmap_new(sizeof(struct stk_thread), NULL)) ||
	    !(tp->events = stk_idmap_new(sizeof(struct stk_ts_tp_thread), NULL))) {
		if (tp)
			stk_idmap_free(tp->from_proc);
		free(tp);
		snprintf(why, len, "out of memory");
		return -1;
	}
	tp->all = req->all;
	tp->sym = req->sym;
	tp->pids = req->pids;
	tp->n_pids = req->n_pids;
	tp->self_tgid = req->self_tgid;
	tp->kernel_stacks = req->kernel_stacks;
	tp->user_stacks = req->user_stacks;
	tp->user_stack_by_hash = req->user_stack_by_hash;
	tp->user_stack_at_start = req->user_stack_at_start;
	tp->user_stack_ctx = req->user_stack_ctx;
	if (load_and_attach(tp, req, why, len)) {
		tp_free(tp);
		return -1;
	}
	if (req->user_stacks && req->user_dwarf) {
		out->user_samples = tp->skel->maps.stk_samples;
		out->user_stats = tp->skel->maps.stk_stats;
	}
	out->impl = tp;
	out->sample = tp_sample;
	out->free = tp_free;
	return 0;
}
