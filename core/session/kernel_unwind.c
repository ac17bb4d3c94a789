/* The kernel unwinder's tables kept filled during a capture: see kernel_unwind.h. */
#include "core/session/kernel_unwind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/unwind_types.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/base/run_loop.h"
#include "core/bpf/unwind_maps.h"
#include "core/runtime/runtime.h"
#include "core/sym/symbolize.h"
#include "core/unwind/table_builder.h"
#include "core/unwind/unwind_tables.h"

/* Pages per CPU of the request buffer: requests are 8 bytes and rare. */
#define REQUEST_PAGES 16

struct stk_kernel_unwind {
	struct stk_bpf *skel;
	struct stk_symbolizer *sym;
	struct stk_unwind_tables *tables;
	struct stk_table_builder *builder; /* NULL: tables are built on the loop's thread */
	struct bpf_link *links[2];
	struct perf_buffer *requests;
	bool verbose;
	unsigned loads, exits, refreshes;
	unsigned runtimes, thread_reads, names; /* interpreters placed, their threads read, chains named early */
	unsigned threads_no_room; /* thread states unwind_rt_threads had no room for */
	bool thread_put_failed;   /* during the current placement */
	/* processes whose reload had to wait (they remap code often): retried when the timer fires */
	uint32_t *later;
	size_t n_later, cap_later;
	int timer_fd;
	bool over; /* the capture ended: nothing more is built */
};

int stk_kernel_unwind_prepare(struct stk_bpf *skel, const struct stk_unwind_sizes *sizes)
{
	return stk_unwind_maps_size(skel, sizes);
}

/* pid's reload waits for its next token: retried when the timer fires. */
static void load_later(struct stk_kernel_unwind *u, pid_t pid)
{
	struct itimerspec in = { .it_value = { 0, STK_UNWIND_RELOAD_EVERY_NS } };

	for (size_t i = 0; i < u->n_later; i++)
		if (u->later[i] == (uint32_t)pid)
			return;
	if (stk_grow((void **)&u->later, &u->cap_later, u->n_later + 1, sizeof(*u->later)))
		return;
	u->later[u->n_later++] = (uint32_t)pid;
	if (u->timer_fd >= 0)
		timerfd_settime(u->timer_fd, 0, &in, NULL);
}

static void put_thread(void *ctx, uint32_t tid, const struct stk_rt_thread *t)
{
	struct stk_kernel_unwind *u = ctx;

	if (bpf_map_update_elem(bpf_map__fd(u->skel->maps.unwind_rt_threads), &tid, t, BPF_ANY)) {
		u->threads_no_room++;
		u->thread_put_failed = true;
	}
}

static void drop_thread(void *ctx, uint32_t tid)
{
	struct stk_kernel_unwind *u = ctx;

	bpf_map_delete_elem(bpf_map__fd(u->skel->maps.unwind_rt_threads), &tid);
}

/*
 * p's interpreter for the walk (core/runtime/runtime.h): its layout and
 * each thread's state, the entry written last so a walk asks for threads
 * again only once it has them all; nothing (and nothing left) when p runs
 * none the kernel walks.
 */
static void place_runtime(struct stk_kernel_unwind *u, struct stk_process *p)
{
	struct stk_rt_proc rt;
	uint32_t tgid = (uint32_t)p->pid;

	if (stk_runtime_kernel_proc(p, &rt)) {
		bpf_map_delete_elem(bpf_map__fd(u->skel->maps.unwind_runtimes), &tgid);
		stk_runtime_kernel_forget(p, drop_thread, u);
		return;
	}
	u->thread_reads++;
	u->thread_put_failed = false;
	if (stk_runtime_kernel_threads(p, put_thread, drop_thread, u))
		return;
	/* threads without room would ask for ever: the walk is told not to (their eval frames stay native) */
	rt.threads_asked = u->thread_put_failed;
	if (bpf_map_update_elem(bpf_map__fd(u->skel->maps.unwind_runtimes), &tgid, &rt, BPF_ANY) == 0)
		u->runtimes++;
}

/*
 * Loads pid's tables from its entry in the process table: the files' built
 * here (no builder: the start), or queued with the builder; its
 * interpreter's layout and threads too.
 */
static void load_now(struct stk_kernel_unwind *u, pid_t pid)
{
	struct stk_process *p = stk_symbolizer_live_process(u->sym, pid);

	if (!p)
		return; /* gone already: its samples keep taking the copy path, its exit freed its slots */
	if (stk_unwind_tables_load(u->tables, p, stk_now_ns(CLOCK_MONOTONIC)) == STK_UNWIND_LATER)
		load_later(u, pid);
	place_runtime(u, p);
	u->loads++;
}

/* pid exited or exec'd: its part of the tables given back, its interpreter's threads too. */
static void forget(struct stk_kernel_unwind *u, uint32_t pid)
{
	struct stk_process *p = stk_symbolizer_find_process(u->sym, (pid_t)pid);

	bpf_map_delete_elem(bpf_map__fd(u->skel->maps.unwind_runtimes), &pid);
	if (!p)
		return;
	stk_unwind_tables_forget(u->tables, p);
	stk_runtime_kernel_forget(p, drop_thread, u);
}

/* A new chain's interpreted frames named now, while the process lives to be read. */
static void name_chain(struct stk_kernel_unwind *u, uint32_t tgid, uint64_t id)
{
	uint64_t pcs[STK_CHAIN_MAX];
	size_t n = 0;
	unsigned stop;
	bool kernel;

	if (stk_unwind_chain_read(u->skel, id, pcs, STK_CHAIN_MAX, &n, &stop, &kernel) == 0 && !kernel) {
		stk_symbolizer_name_interpreted(u->sym, (pid_t)tgid, pcs, n);
		u->names++;
	}
}

void stk_kernel_unwind_load(struct stk_kernel_unwind *u, pid_t pid)
{
	if (u && pid > 0 && !u->over)
		load_now(u, pid);
}

static int submit(void *ctx, struct stk_file *file, const char *name)
{
	struct stk_kernel_unwind *u = ctx;

	return stk_table_builder_submit(u->builder, file, name, file->fd, file->image, file->image_size);
}

/* The processes to load again after a turn's tables were placed. */
struct users {
	uint32_t *tgids;
	size_t n, cap;
};

static void note_user(void *ctx, uint32_t tgid)
{
	struct users *us = ctx;

	if (!stk_grow((void **)&us->tgids, &us->cap, us->n + 1, sizeof(*us->tgids)))
		us->tgids[us->n++] = tgid;
}

static int tgid_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A turn's worth of finished tables at most: the loop's other work is not held up behind a long queue. */
#define BUILT_PER_TURN 64

/*
 * The builder finished tables: each placed, then every process mapping one
 * of them loaded again, once for the whole turn (a new process's dozens of
 * libraries arrive together when the loop was busy).
 */
static void on_built(void *ctx)
{
	struct stk_kernel_unwind *u = ctx;
	struct users us = { 0 };
	struct stk_table_built b;

	for (unsigned i = 0; i < BUILT_PER_TURN && stk_table_builder_take(u->builder, &b); i++) {
		stk_unwind_tables_built(u->tables, b.file, b.name, b.ok ? &b.table : NULL, b.why,
					b.table.stats.build_ns);
		stk_cfi_table_free(&b.table);
		if (!u->over)
			stk_unwind_tables_each_user(u->tables, b.file, note_user, &us);
	}
	if (us.n)
		qsort(us.tgids, us.n, sizeof(*us.tgids), tgid_order);
	for (size_t i = 0; i < us.n; i++)
		if (!i || us.tgids[i] != us.tgids[i - 1])
			load_now(u, (pid_t)us.tgids[i]);
	free(us.tgids);
}

/* The timer: the reloads that had to wait, with the mappings as they are now. */
static void retry_later(void *ctx)
{
	struct stk_kernel_unwind *u = ctx;
	uint64_t expirations;
	size_t n = u->n_later;
	uint32_t *pids = u->later;

	if (read(u->timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	u->later = NULL;
	u->n_later = u->cap_later = 0;
	for (size_t i = 0; i < n && !u->over; i++) {
		stk_symbolizer_refresh_process(u->sym, (pid_t)pids[i]);
		load_now(u, (pid_t)pids[i]);
	}
	free(pids);
}

static void on_request(void *ctx, int cpu, void *data, __u32 size)
{
	struct stk_kernel_unwind *u = ctx;
	struct stk_unwind_request req;

	(void)cpu;
	if (size < sizeof(req))
		return;
	memcpy(&req, data, sizeof(req));
	switch (req.kind) {
	case STK_UNWIND_REQ_REFRESH:
	case STK_UNWIND_REQ_EXEC:
		/* its mappings are not what the symbolizer and the tables knew */
		if (u->over)
			break;
		stk_symbolizer_refresh_process(u->sym, (pid_t)req.tgid);
		if (req.kind == STK_UNWIND_REQ_EXEC)
			forget(u, req.tgid);
		load_now(u, (pid_t)req.tgid);
		u->refreshes++;
		break;
	case STK_UNWIND_REQ_EXIT:
		forget(u, req.tgid);
		stk_symbolizer_process_exited(u->sym, (pid_t)req.tgid);
		u->exits++;
		break;
	case STK_UNWIND_REQ_THREADS:
		/* a new thread: its state placed with the rest; a process that keeps asking waits its turn */
		if (!u->over)
			load_later(u, (pid_t)req.tgid);
		break;
	case STK_UNWIND_REQ_NAMES:
		name_chain(u, req.tgid, req.arg);
		break;
	}
}

static void consume(void *ctx)
{
	struct stk_kernel_unwind *u = ctx;

	perf_buffer__consume(u->requests);
}

/* The file cache frees a file no process maps: its table's rows go first (false: a process still uses them). */
static bool let_go_file(void *ctx, struct stk_file *f)
{
	struct stk_kernel_unwind *u = ctx;

	return stk_unwind_tables_let_go(u->tables, f);
}

/* The process table frees an exited process whose tables are still placed (its exit message lost). */
static void let_go_process(void *ctx, struct stk_process *p)
{
	forget(ctx, (uint32_t)p->pid);
}

struct stk_kernel_unwind *stk_kernel_unwind_start(const char *applet, struct stk_bpf *skel,
						  struct stk_symbolizer *sym, const uint32_t *pids, size_t n_pids,
						  bool verbose)
{
	struct stk_kernel_unwind *u = calloc(1, sizeof(*u));
	struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_capacity cap = {
		.rows = bpf_map__max_entries(skel->maps.unwind_rows),
		.pages = bpf_map__max_entries(skel->maps.unwind_pages),
		.mappings = bpf_map__max_entries(skel->maps.unwind_mappings),
		.procs = bpf_map__max_entries(skel->maps.unwind_procs),
	};

	if (u)
		u->timer_fd = -1;
	if (!u || !(u->tables = stk_unwind_tables_new(&stk_unwind_bpf_ops, skel, &cap, &lim))) {
		stk_error(applet, "out of memory");
		stk_kernel_unwind_free(u);
		return NULL;
	}
	u->skel = skel;
	u->sym = sym;
	stk_symbolizer_set_table_holder(sym, &(struct stk_table_holder){ let_go_file, let_go_process, u });
	u->verbose = verbose;
	u->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	u->links[0] = bpf_program__attach_raw_tracepoint(skel->progs.stk_unwind_exec, "sched_process_exec");
	u->links[1] = u->links[0] ? bpf_program__attach_raw_tracepoint(skel->progs.stk_unwind_exit,
								       "sched_process_exit")
				  : NULL;
	if (!u->links[1]) {
		stk_error(applet, "attaching the unwinder's exec and exit hooks failed: %s", strerror(errno));
		stk_kernel_unwind_free(u);
		return NULL;
	}
	u->requests = perf_buffer__new(bpf_map__fd(skel->maps.unwind_requests), REQUEST_PAGES, on_request, NULL, u,
				       NULL);
	if (!u->requests) {
		stk_error(applet, "creating the unwinder's request buffer failed: %s", strerror(errno));
		stk_kernel_unwind_free(u);
		return NULL;
	}
	/* the processes asked for, built now: their first samples walk in the kernel */
	for (size_t i = 0; i < n_pids; i++)
		load_now(u, (pid_t)pids[i]);
	/* the rest on a thread of their own, so the loop stays quick (new processes, samples) */
	if (!(u->builder = stk_table_builder_new(&lim)))
		fprintf(stderr, "WARNING: %s: no thread for building unwind tables (%s): the loop builds them\n",
			applet, strerror(errno));
	else
		stk_unwind_tables_set_builder(u->tables, submit, u);
	return u;
}

void stk_kernel_unwind_set_stop(struct stk_kernel_unwind *u, bool (*stop)(void *ctx), void *ctx)
{
	struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;

	lim.stop = stop;
	lim.stop_ctx = ctx;
	stk_unwind_tables_set_limits(u->tables, &lim);
}

int stk_kernel_unwind_watch(const char *applet, struct stk_kernel_unwind *u, struct stk_run_loop *loop)
{
	stk_kernel_unwind_set_stop(u, stk_run_loop_stop_requested, loop);
	if (stk_run_loop_add_fd(loop, perf_buffer__epoll_fd(u->requests), consume, u) ||
	    (u->timer_fd >= 0 && stk_run_loop_add_fd(loop, u->timer_fd, retry_later, u)) ||
	    (u->builder && stk_run_loop_add_fd(loop, stk_table_builder_fd(u->builder), on_built, u))) {
		stk_error(applet, "watching the unwinder's request buffer failed");
		return -1;
	}
	return 0;
}

void stk_kernel_unwind_drain(struct stk_kernel_unwind *u)
{
	if (u)
		perf_buffer__consume(u->requests);
}

void stk_kernel_unwind_stop(struct stk_kernel_unwind *u)
{
	if (!u)
		return;
	/* the walk has stopped: tables built now only cost time (a busy host queues many processes) */
	u->over = true;
	stk_table_builder_free(u->builder);
	u->builder = NULL;
}

int stk_kernel_unwind_chain(const struct stk_kernel_unwind *u, uint64_t id, uint64_t *pcs, size_t max, size_t *n,
			    unsigned *stop, bool *kernel)
{
	return stk_unwind_chain_read(u->skel, id, pcs, max, n, stop, kernel);
}

void stk_kernel_unwind_report(const struct stk_kernel_unwind *u, const char *applet, uint64_t copy_samples)
{
	struct stk_unwind_tables_stats st;
	uint64_t walks = stk_unwind_stat(u->skel, STK_USTAT_WALKS), full = stk_unwind_stat(u->skel, STK_USTAT_CHAINS_FULL);

	stk_unwind_tables_get_stats(u->tables, &st);
	if (full)
		fprintf(stderr, "WARNING: %llu stacks found the chain store full (%u chunks of %d frames) and took the "
			"slower copy path; raise --cfi-chains\n", (unsigned long long)full,
			bpf_map__max_entries(u->skel->maps.unwind_chains), STK_CHAIN_CHUNK);
	if (u->threads_no_room)
		fprintf(stderr, "WARNING: %u interpreter threads got no room in the kernel walk's thread map (%u entries); "
			"their interpreted frames are not read\n", u->threads_no_room,
			bpf_map__max_entries(u->skel->maps.unwind_rt_threads));
	if (st.files_no_room)
		fprintf(stderr, "WARNING: %u files got no room in the unwind tables (%llu of %llu rows used); their "
			"frames took the slower copy path; raise --cfi-rows\n", st.files_no_room,
			(unsigned long long)st.rows_used, (unsigned long long)st.rows_cap);
	if (!u->verbose)
		return;
	fprintf(stderr, "%s: user stacks: %llu walked in the kernel (%llu frames), %llu reused a kept walk "
		"(the stack words it read unchanged; %llu kept walks had changed), %llu by the copy path "
		"(process not loaded yet %llu, mappings changed %llu, a table not placed yet or without room %llu, chain store full %llu)\n",
		applet, (unsigned long long)walks, (unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_FRAMES),
		(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_MEMO_HITS),
		(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_MEMO_CHANGED), (unsigned long long)copy_samples, (unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_NO_PROCESS),
		(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_STALE),
		(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_PARTIAL), (unsigned long long)full);
	if (stk_unwind_stat(u->skel, STK_USTAT_KMEMO_HITS) || stk_unwind_stat(u->skel, STK_USTAT_KMEMO_CHANGED))
		fprintf(stderr, "%s: kernel stacks at a block: %llu reused a kept chain (its return addresses in their "
			"slots unchanged; %llu kept chains had changed)\n", applet,
			(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_KMEMO_HITS),
			(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_KMEMO_CHANGED));
	fprintf(stderr, "%s: kernel walks ended:", applet);
	for (unsigned s = 0; s < STK_STOP_COUNT; s++) {
		uint64_t n = stk_unwind_stat(u->skel, STK_USTAT_STOP_FIRST + s);

		if (n)
			fprintf(stderr, " %s %llu;", stk_walk_stop_text(s), (unsigned long long)n);
	}
	fputc('\n', stderr);
	if (u->runtimes) {
		static const char *const rt_stops[STK_RT_STOP_COUNT] = {
			[STK_RT_STOP_NO_THREAD] = "thread state not on the list yet",
			[STK_RT_STOP_THREAD] = "thread state unreadable or another thread's",
			[STK_RT_STOP_READ] = "frame unreadable", [STK_RT_STOP_CYCLE] = "frames in a cycle",
			[STK_RT_STOP_BAD] = "frame without a code object",
			[STK_RT_STOP_UNPLACED] = "no native frame held a run's mark",
			[STK_RT_STOP_LONG] = "a run past the frames one walk reads",
			[STK_RT_STOP_THREADS_CYCLE] = "thread list in a cycle",
			[STK_RT_STOP_THREADS_LONG] = "thread list longer than the walk searches",
		};

		fprintf(stderr, "%s: interpreted frames in the kernel: %llu in %llu walks (%u interpreters placed, "
			"their threads read %u times, %llu thread states found by the walk, %u new chains named early); "
			"stopped early:", applet,
			(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_RT_FRAMES),
			(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_RT_WALKS), u->runtimes, u->thread_reads,
			(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_RT_THREADS_FOUND), u->names);
		for (unsigned s = 0; s < STK_RT_STOP_COUNT; s++)
			fprintf(stderr, " %s %llu;", rt_stops[s],
				(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_RT_STOP_FIRST + s));
		fputc('\n', stderr);
	}
	fprintf(stderr, "%s: unwind tables: %u files built in %.1f ms CPU (%u without usable CFI, %u evicted, %u let go), "
		"largest %s (%zu rows); rows %llu of %llu, mappings %llu of %llu; %u processes loaded, %u reloads, "
		"%u exits; chain probes %llu\n", applet, st.files_built, (double)st.build_ns / 1e6, st.files_failed,
		st.files_evicted, st.files_let_go, st.biggest[0] ? st.biggest : "-", st.biggest_rows,
		(unsigned long long)st.rows_peak,
		(unsigned long long)st.rows_cap, (unsigned long long)st.mappings_used,
		(unsigned long long)st.mappings_cap, st.procs_loaded, st.reloads, u->exits,
		(unsigned long long)stk_unwind_stat(u->skel, STK_USTAT_CHAIN_PROBES));
	for (size_t i = 0; i < st.n_built; i++)
		fprintf(stderr, "%s: unwind table: %s: %zu rows, %.1f MiB in the kernel, built in %.1f ms CPU\n", applet,
			st.built[i].name, st.built[i].rows,
			(double)(st.built[i].rows * sizeof(struct stk_cfi_row) + st.built[i].pages * 4) / (1 << 20),
			(double)st.built[i].build_ns / 1e6);
	if (st.last_failure[0])
		fprintf(stderr, "%s: unwind tables: last file without a table: %s\n", applet, st.last_failure);
}

void stk_kernel_unwind_free(struct stk_kernel_unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(u->links[i]);
	perf_buffer__free(u->requests);
	if (u->sym)
		stk_symbolizer_set_table_holder(u->sym, NULL);
	stk_unwind_tables_free(u->tables);
	if (u->timer_fd >= 0)
		close(u->timer_fd);
	stk_table_builder_free(u->builder);
	free(u->later);
	free(u);
}
