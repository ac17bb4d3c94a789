#include "core/session/session.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/timerfd.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/stack_stats.h"
#include "core/base/caps.h"
#include "core/base/clock.h"
#include "core/base/log.h"
#include "core/base/pidns.h"
#include "core/base/safe_output.h"
#include "core/base/tracefs.h"
#include "core/bpf/bpf_object.h"
#include "core/bpf/btf_embedded.h"
#include "core/bpf/libbpf_log.h"
#include "core/bpf/percpu_maps.h"
#include "core/bpf/process_watch.h"
#include "core/bpf/unwind_facts.h"
#include "core/bpf/unwind_maps.h"
#include "core/ladder/climb.h"
#include "core/session/dwarf_samples.h"
#include "core/session/event_outputs.h"
#include "core/session/event_sink.h"
#include "core/session/kernel_unwind.h"
#include "core/sym/symbolize.h"
#include "stk.skel.h"

int stk_session_open_bpf(struct stk_session *s, const char *applet, int verbose, const char *btf_file)
{
	struct stk_caps caps;

	s->applet = applet;
	s->empty_btf_fd = -1;
	s->sweep_fd = -1;
	s->cgroup_fd = -1;
	s->entered_mono = stk_now_ns(CLOCK_MONOTONIC);
	if (stk_caps_read_self(&caps) || !stk_caps_can_trace(&caps)) {
		stk_error(applet, "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN); running as "
				  "uid %d without them", (int)geteuid());
		return -1;
	}
	stk_libbpf_set_verbose(verbose);
	/*
	 * tracefs first, before any file is opened or thread started: where it
	 * is not mounted stk mounts it in a private mount namespace, and a file
	 * opened before that (an -o temporary) could not be linked into place
	 * from the new namespace (EXDEV). A rung that needs tracefs says why not.
	 */
	const char *how;
	char tracefs_err[256];
	(void)stk_tracefs_ensure(&how, tracefs_err, sizeof(tracefs_err));
	if (stk_btf_resolve_here(btf_file, &s->btf)) {
		stk_error(applet, "--btf %s: %s", btf_file, s->btf.detail);
		return -1;
	}
	return 0;
}

/* Each -o file is written to a new file that replaces the path only when complete (core/base/safe_output.h). */
static int open_outputs(struct stk_session *s)
{
	char err[PATH_MAX + 128];

	for (size_t i = 0; i < s->opts->n_outputs; i++) {
		s->outs[i] = stk_safe_output_open(s->opts->output_paths[i], err, sizeof(err));
		if (!s->outs[i]) {
			stk_error(s->applet, "-o %s", err);
			return -1;
		}
	}
	return 0;
}

/* --cgroup: its directory, which the BPF filter takes only from cgroup v2 (a v1 hierarchy or a plain directory would fail late). */
static int open_cgroup(struct stk_session *s)
{
	const char *path = s->opts->cgroup_path;
	struct statfs fs;

	s->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->cgroup_fd < 0) {
		stk_error(s->applet, "--cgroup %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstatfs(s->cgroup_fd, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		stk_error(s->applet, "--cgroup %s: not a cgroup v2 directory (see /proc/mounts for the cgroup2 mount)",
			  path);
		return -1;
	}
	return 0;
}

int stk_session_open(struct stk_session *s, const struct stk_stack_applet *app, const struct stk_stack_opts *opts,
		     const uint32_t *pids, size_t n_pids)
{
	const char *applet = app->name;

	s->opts = opts;
	s->app = *app;
	if (stk_session_open_bpf(s, applet, opts->verbose, opts->btf_file) || open_outputs(s) ||
	    (opts->cgroup_path && open_cgroup(s)))
		return -1;

	/* keep_elf: the files' CFI for the unwinders, even after their processes exit. */
	struct stk_symbolizer_opts so = { .demangle = opts->no_args ? STK_DEMANGLE_NO_ARGS : STK_DEMANGLE_FULL,
					  .keep_elf = opts->unwind != STK_UNWIND_FP,
					  .debuginfod = !opts->no_debuginfod, .verbose = opts->verbose,
					  .no_inline = opts->no_inline };
	s->sym = stk_symbolizer_new(&so);
	if (!s->sym) {
		stk_error(applet, "cannot set up the symbolizer");
		return -1;
	}
	s->resolver = (struct stk_stack_resolver){
		.stack_map_fd = -1, .sym = s->sym, .max_depth = (uint32_t)opts->max_depth,
		.user_only = opts->user_only, .kernel_only = opts->kernel_only, .rules = app->rules,
	};
	for (size_t i = 0; i < n_pids; i++)
		stk_symbolizer_add_process(s->sym, (pid_t)pids[i]);
	s->events_possible = stk_events_possible_here(stk_session_has_btf(s));
	if (stk_wants_events(opts) || app->records) {
		char err[1024];

		const struct stk_event_where where = { .outs = s->outs, .series_dir = app->series_dir,
						       .series = app->series };

		s->events = stk_event_outputs_open(opts, &where, stk_session_has_btf(s), n_pids == 1 ? pids[0] : 0,
						   app->records, err, sizeof(err));
		if (!s->events) {
			stk_error(applet, "%s", err);
			return -1;
		}
	}
	return 0;
}

/* names appended to list (of cap entries, NULL-terminated) at *n. */
static void append_names(const char **list, size_t cap, size_t *n, const char *const *names)
{
	for (; names && *names && *n + 1 < cap; names++)
		list[(*n)++] = *names;
	list[*n] = NULL;
}

static const char *const event_map_names[] = { "stk_events", "stk_spans", "stk_span_config", "stk_event_stats",
					       "stk_event_lost", NULL };
/* The stack maps (bpf/stack_maps.h) every rung counts through; the copies' for dwarf and cfi; hashed copies' once-sent set. */
static const char *const stack_map_names[] = { "stk_pids", "stk_tids", "stk_cgroup", "stk_stacks", "stk_counts",
					       "stk_stats", "stk_seen", "stk_new_process", NULL };
static const char *const copy_map_names[] = { "stk_scratch", "stk_samples", NULL };
static const char *const hashed_map_names[] = { "stk_sent", NULL };
static const char *const usdt_map_names[] = { "__bpf_usdt_specs", "__bpf_usdt_ip_to_spec_id", "stk_bpf.kconfig", NULL };

const char *const *stk_session_extra_maps(struct stk_session *s)
{
	size_t n = 0, cap = sizeof(s->extra_maps) / sizeof(s->extra_maps[0]);

	s->extra_maps[0] = NULL;
	if (s->app.counts) {
		append_names(s->extra_maps, cap, &n, stack_map_names);
		/* hashed copies' set too where copies are not hashed: profile's programs hash them in stk record */
		if (s->unwind.rung != STK_UNWIND_FP) {
			append_names(s->extra_maps, cap, &n, copy_map_names);
			append_names(s->extra_maps, cap, &n, hashed_map_names);
		}
	}
	if (s->unwind.rung == STK_UNWIND_CFI)
		append_names(s->extra_maps, cap, &n, stk_unwind_map_names);
	if (s->events_possible)
		append_names(s->extra_maps, cap, &n, event_map_names);
	if (stk_event_outputs_usdt(s->events))
		append_names(s->extra_maps, cap, &n, usdt_map_names);
	return n ? s->extra_maps : NULL;
}

const char *const *stk_session_extra_programs(struct stk_session *s)
{
	size_t n = 0, cap = sizeof(s->extra_programs) / sizeof(s->extra_programs[0]);

	s->extra_programs[0] = NULL;
	if (s->unwind.rung == STK_UNWIND_CFI)
		append_names(s->extra_programs, cap, &n, stk_unwind_program_names);
	append_names(s->extra_programs, cap, &n, stk_event_outputs_programs(s->events));
	return n ? s->extra_programs : NULL;
}

/* The event log's maps: one page when no event is recorded. */
static int size_event_maps(struct stk_session *s, struct stk_bpf *skel)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);

	if (!s->events_possible)
		return 0;
	if (bpf_map__set_max_entries(skel->maps.stk_events, s->events ? s->opts->event_buffer_mb << 20 : page))
		return -1;
	/* threads with open spans at once (an LRU: a thread that died in one gives its entry back) */
	return bpf_map__set_max_entries(skel->maps.stk_spans, s->opts->n_spans ? 16384 : 1);
}

/* A filter map holds one entry per target; at least one so that it can be created. */
static uint32_t filter_size(size_t n)
{
	return n ? (uint32_t)n : 1;
}

/* The stack maps: frames per stack and stacks from the options, a scratch copy per CPU. */
static int size_stack_maps(struct stk_session *s, struct stk_bpf *skel)
{
	const struct stk_stack_opts *o = s->opts;
	int ncpu = libbpf_num_possible_cpus();

	if (!s->app.counts)
		return 0;
	if (bpf_map__set_max_entries(skel->maps.stk_stacks, (uint32_t)o->stack_storage_size) ||
	    bpf_map__set_value_size(skel->maps.stk_stacks, (uint32_t)(o->max_depth * sizeof(uint64_t))) ||
	    bpf_map__set_max_entries(skel->maps.stk_counts, STK_COUNTS_SIZE) ||
	    bpf_map__set_max_entries(skel->maps.stk_pids, filter_size(o->n_pids)) ||
	    bpf_map__set_max_entries(skel->maps.stk_tids, filter_size(o->n_tids)))
		return -1;
	if (!s->app.hashes && bpf_map__set_max_entries(skel->maps.stk_sent, 1))
		return -1;
	return ncpu < 1 || bpf_map__set_max_entries(skel->maps.stk_scratch, (uint32_t)ncpu) ? -1 : 0;
}

int stk_session_size_maps(struct stk_session *s, struct stk_bpf *skel)
{
	struct stk_unwind_sizes sizes;

	if (size_stack_maps(s, skel) || size_event_maps(s, skel))
		return -1;
	if (s->unwind.rung != STK_UNWIND_CFI)
		return 0;
	stk_unwind_sizes_default(&sizes);
	sizes.tables.rows = s->opts->cfi_rows;
	sizes.chains = s->opts->cfi_chains;
	return stk_kernel_unwind_prepare(skel, &sizes);
}

/* The events field of the applet's BPF configuration (STK_EVENTS_*): 0 when nothing is recorded. */
static uint32_t event_flags(const struct stk_session *s)
{
	if (!s->events)
		return 0;
	return STK_EVENTS_ON | (s->opts->n_spans ? STK_EVENTS_SPANS : 0);
}

struct stk_stack_config stk_session_stack_config(const struct stk_session *s)
{
	const struct stk_stack_opts *o = s->opts;

	return (struct stk_stack_config){
		.filter_pids = o->n_pids > 0,
		.filter_tids = o->n_tids > 0,
		.filter_cgroup = s->cgroup_fd >= 0,
		.kernel_stacks = !o->user_only,
		.user_stacks = !o->kernel_only,
		.per_thread = o->n_tids > 0,
		.stack_bytes = o->stack_bytes,
		/* 0 where stk's own pid is not the one the kernel sees (another PID namespace) */
		.self_tgid = !s->app.counts_itself && stk_pidns_is_host() ? (uint32_t)getpid() : 0,
		.max_depth = stk_unwind_chain_depth(o->max_depth),
		.events = event_flags(s),
	};
}

static int fill(struct bpf_map *map, const uint32_t *ids, size_t n)
{
	uint8_t one = 1;

	for (size_t i = 0; i < n; i++)
		if (bpf_map__update_elem(map, &ids[i], sizeof(uint32_t), &one, sizeof(one), 0))
			return -1;
	return 0;
}

/* --unwind dwarf, and cfi's processes without tables: the copies' reader (a new one for a new skeleton). */
static int read_copies(struct stk_session *s, struct stk_bpf *skel)
{
	const struct stk_stack_opts *o = s->opts;
	const struct stk_dwarf_opts dopts = {
		.max_depth = (uint32_t)o->max_depth, .per_thread = o->n_tids > 0, .verbose = o->verbose,
		.user_only = o->user_only, .kernel_only = o->kernel_only, .by_hash = s->app.hashes,
	};

	stk_dwarf_samples_free(s->dwarf);
	s->dwarf = stk_dwarf_samples_start(s->applet, skel->maps.stk_samples, skel->maps.stk_sent, s->sym, s->loop,
					   &dopts);
	return s->dwarf ? 0 : -1;
}

int stk_session_connect(struct stk_session *s, struct stk_bpf *skel)
{
	const struct stk_stack_opts *o = s->opts;
	char err[1024];

	s->skel = skel;
	uint32_t zero = 0;

	if (fill(skel->maps.stk_pids, o->pids, o->n_pids) || fill(skel->maps.stk_tids, o->tids, o->n_tids) ||
	    (s->cgroup_fd >= 0 && bpf_map__update_elem(skel->maps.stk_cgroup, &zero, sizeof(zero), &s->cgroup_fd,
						       sizeof(s->cgroup_fd), 0))) {
		stk_error(s->applet, "writing filters into BPF maps failed: %s", strerror(errno));
		return -1;
	}
	if (s->unwind.rung != STK_UNWIND_FP && read_copies(s, skel))
		return -1;
	if (s->unwind.rung == STK_UNWIND_CFI) {
		stk_kernel_unwind_free(s->kunwind);
		s->kunwind = stk_kernel_unwind_start(s->applet, skel, s->sym, o->pids, o->n_pids, o->verbose);
		if (!s->kunwind)
			return -1;
	}
	s->resolver.stack_map_fd = bpf_map__fd(skel->maps.stk_stacks);
	s->resolver.copies = s->dwarf;
	s->resolver.chains = s->kunwind;
	if (!s->events)
		return 0;
	if (stk_event_sink_connect(stk_event_outputs_sink(s->events), skel, &s->app.events, &s->resolver, err,
				   sizeof(err)) ||
	    stk_event_outputs_attach(s->events, skel, err, sizeof(err))) {
		stk_error(s->applet, "%s", err);
		return -1;
	}
	return 0;
}

void stk_session_say_mechanism(const struct stk_session *s, const char *what, const char *tried)
{
	char passed[1024];

	if (s->opts->verbose)
		fprintf(stderr, "%s: %s%s; BTF %s; unwind %s\n", s->applet, what,
			stk_climb_passed_over(tried, passed, sizeof(passed)), stk_btf_kind_name(s->btf.kind),
			stk_unwind_rung_name(s->unwind.rung));
}

void stk_session_event_add(struct stk_session *s, const struct stk_event *e)
{
	stk_event_sink_add(stk_event_outputs_sink(s->events), e);
}

void stk_session_event_row(struct stk_session *s, uint16_t type, struct stk_ev_row *row)
{
	stk_event_sink_add_row(stk_event_outputs_sink(s->events), type, row);
}

int stk_session_plan_unwind(struct stk_session *s, const struct stk_stack_opts *o, bool hashes,
			    enum stk_unwind_rung top)
{
	const struct stk_unwind_want want = { .rung = o->unwind, .given = o->unwind_given, .hashes = hashes, .top = top };
	struct stk_unwind_facts facts;
	char err[256];

	stk_unwind_facts_here(stk_session_has_btf(s), &facts);
	if (stk_unwind_plan_make(&want, &facts, &s->unwind, err, sizeof(err))) {
		stk_error(s->applet, "%s", err);
		return -1;
	}
	if (o->verbose && s->unwind.passed_over[0])
		fprintf(stderr, "%s: unwind %s: passed over %s\n", s->applet, stk_unwind_rung_name(s->unwind.rung),
			s->unwind.passed_over);
	return 0;
}

uint32_t stk_unwind_chain_depth(uint64_t max_depth)
{
	return max_depth < STK_CHAIN_MAX ? (uint32_t)max_depth : STK_CHAIN_MAX;
}

/* An announced process: its mappings learned again (an exec makes the old ones stale), its tables loaded. */
static void on_process(void *ctx, pid_t pid)
{
	struct stk_session *s = ctx;

	stk_symbolizer_refresh_process(s->sym, pid);
	stk_kernel_unwind_load(s->kunwind, pid);
}

bool stk_session_has_btf(const struct stk_session *s)
{
	return s->btf.kind != STK_BTF_NONE;
}

const char *stk_session_btf_path(struct stk_session *s)
{
	if (!s->applet) /* not opened: no BPF in this run */
		return NULL;
	if (stk_session_has_btf(s))
		return stk_btf_custom_path(&s->btf);
	if (s->empty_btf_fd < 0)
		s->empty_btf_fd = stk_bpf_empty_btf(s->empty_btf_path, sizeof(s->empty_btf_path));
	return s->empty_btf_fd >= 0 ? s->empty_btf_path : NULL;
}

/* Once a second: processes that exited keep only what their stacks need (a host's churn costs little). */
static void sweep(void *ctx)
{
	struct stk_session *s = ctx;
	uint64_t expirations;

	if (read(s->sweep_fd, &expirations, sizeof(expirations)) > 0)
		stk_symbolizer_sweep(s->sym);
}

static int watch_exits(struct stk_session *s)
{
	struct itimerspec every = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };

	s->sweep_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->sweep_fd < 0 || timerfd_settime(s->sweep_fd, 0, &every, NULL) ||
	    stk_run_loop_add_fd(s->loop, s->sweep_fd, sweep, s)) {
		stk_error(s->applet, "setting up the exited-process sweep failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int stk_session_start(struct stk_session *s, long interval_ms)
{
	char err[256];

	s->loop = stk_run_loop_new(s->opts ? s->opts->duration_ms : 0, interval_ms, err, sizeof(err));
	if (!s->loop) {
		stk_error(s->applet, "%s", err);
		return -1;
	}
	if (s->skel) {
		s->processes = stk_process_watch_start(s->applet, s->skel->maps.stk_new_process, on_process, s, s->loop);
		if (!s->processes)
			return -1;
	}
	if (s->sym && watch_exits(s))
		return -1;
	if (s->dwarf && stk_dwarf_samples_watch(s->applet, s->dwarf, s->loop))
		return -1;
	if (s->kunwind && stk_kernel_unwind_watch(s->applet, s->kunwind, s->loop))
		return -1;
	if (s->events) {
		char err[256];

		if (stk_event_sink_watch(stk_event_outputs_sink(s->events), s->loop, err, sizeof(err))) {
			stk_error(s->applet, "%s", err);
			return -1;
		}
	}
	if (s->opts && s->opts->verbose)
		fprintf(stderr, "%s: tracing %.1f ms after start\n", s->applet,
			(double)(stk_now_ns(CLOCK_MONOTONIC) - s->entered_mono) / 1e6);
	s->start_wall = stk_now_ns(CLOCK_REALTIME);
	s->start_mono = stk_now_ns(CLOCK_MONOTONIC);
	return 0;
}

enum stk_run_event stk_session_wait(struct stk_session *s)
{
	return stk_run_loop_wait(s->loop);
}

void stk_session_drain(struct stk_session *s)
{
	if (s->processes)
		stk_process_watch_drain(s->processes);
	stk_kernel_unwind_drain(s->kunwind);
	stk_dwarf_samples_drain(s->dwarf);
	stk_event_sink_drain(stk_event_outputs_sink(s->events), false);
}

static void warn_lost(uint64_t n, const char *what, const char *fix, uint64_t now)
{
	if (n)
		fprintf(stderr, "WARNING: %llu %s; %s (now %llu)\n", (unsigned long long)n, what, fix,
			(unsigned long long)now);
}

/* After the BPF side stopped: drain, the wait's error if any, losses, -v stats. */
static void stopped(struct stk_session *s, enum stk_run_event ev)
{
	uint64_t stat[STK_STAT_COUNT];

	/* What follows is bounded: a deadline, and SIGINT/SIGTERM (the loop's signalfd) stop symbolizing
	 * and unwinding; a capture a signal ended gets only a short time for the samples still queued. */
	int64_t now = stk_now_ns(CLOCK_MONOTONIC);
	const char *not_unwound_why;
	uint64_t not_unwound;

	stk_symbolizer_set_deadline(s->sym, STK_SYMBOLIZE_DEADLINE_MS);
	stk_symbolizer_set_stop(s->sym, stk_run_loop_stop_requested, s->loop);
	if (ev == STK_RUN_SIGNAL)
		stk_dwarf_samples_set_deadline(s->dwarf, now + STK_UNWIND_AFTER_SIGNAL_MS * 1000000LL,
					       "not unwound: SIGINT/SIGTERM ended the capture while it was queued");
	else
		stk_dwarf_samples_set_deadline(s->dwarf, now + STK_SYMBOLIZE_DEADLINE_MS * 1000000LL,
					       "not unwound: the deadline for results passed while it was queued");
	stk_kernel_unwind_stop(s->kunwind);
	stk_event_outputs_detach(s->events);
	stk_session_drain(s);
	/* every copy is unwound now: events still waiting for one are written as they are */
	stk_event_sink_drain(stk_event_outputs_sink(s->events), true);
	not_unwound = stk_dwarf_samples_not_unwound(s->dwarf, &not_unwound_why);
	if (ev == STK_RUN_ERROR)
		stk_error(s->applet, "waiting failed: %s; printing what was collected", strerror(errno));
	for (uint32_t i = 0; i < STK_STAT_COUNT; i++)
		stat[i] = s->skel ? stk_percpu_sum(s->skel->maps.stk_stats, i) : 0;
	warn_lost(stat[STK_STAT_KSTACK_COLLISION] + stat[STK_STAT_USTACK_COLLISION],
		  "stack traces lost to stack map hash collisions", "raise --stack-storage-size",
		  s->opts->stack_storage_size);
	warn_lost(stat[STK_STAT_KSTACK_FULL] + stat[STK_STAT_USTACK_FULL],
		  "stack traces lost because the stack map was full", "raise --stack-storage-size",
		  s->opts->stack_storage_size);
	if (stat[STK_STAT_COUNTS_FULL])
		fprintf(stderr, "WARNING: %llu %s lost because the count map (%u unique stacks) was full\n",
			(unsigned long long)stat[STK_STAT_COUNTS_FULL], s->app.unit, STK_COUNTS_SIZE);
	if (stat[STK_STAT_START_FULL])
		fprintf(stderr, "WARNING: %llu %s not measured because too many threads were off CPU at "
			"once (start map full)\n", (unsigned long long)stat[STK_STAT_START_FULL], s->app.unit);
	if (s->dwarf && stk_dwarf_samples_lost(s->dwarf))
		fprintf(stderr, "WARNING: %llu samples lost in user space (out of memory)\n",
			(unsigned long long)stk_dwarf_samples_lost(s->dwarf));
	if (not_unwound)
		fprintf(stderr, "WARNING: %llu user stacks were not unwound and show their leaf frame only (%s)\n",
			(unsigned long long)not_unwound, not_unwound_why);
	/* Samples without buffer room are counted with frame-pointer stacks instead. */
	if (s->dwarf && stat[STK_STAT_SAMPLES_LOST])
		fprintf(stderr, "WARNING: %llu samples found the sample buffer full (its reader short of CPU) and "
			"were counted with frame-pointer stacks, whose callers may be incomplete; lower "
			"--stack-bytes (now %u) or the rate\n", (unsigned long long)stat[STK_STAT_SAMPLES_LOST],
			s->opts->stack_bytes);
	if (s->dwarf && s->opts->verbose) {
		uint64_t n, ns;

		if (stk_dwarf_samples_by_hash(s->dwarf))
			fprintf(stderr, "%s: %llu samples of new stack content sent to user space, %llu could not be "
				"sent (counted by frame pointers), %llu re-sent (sent-hash map full); %llu copies let go "
				"at checkpoints\n", s->applet, (unsigned long long)stat[STK_STAT_SAMPLES_SENT],
				(unsigned long long)stat[STK_STAT_SAMPLES_LOST], (unsigned long long)stat[STK_STAT_SENT_FULL],
				(unsigned long long)stk_dwarf_samples_forgotten(s->dwarf));
		stk_dwarf_samples_stats(s->dwarf, &n, &ns);
		fprintf(stderr, "%s: unwound %llu user stacks with CFI in %.1f ms CPU (%.1f us each)\n", s->applet,
			(unsigned long long)n, (double)ns / 1e6, n ? (double)ns / 1e3 / (double)n : 0.0);
	}
	if (s->kunwind) {
		uint64_t copies = 0, ns;

		stk_dwarf_samples_stats(s->dwarf, &copies, &ns);
		stk_kernel_unwind_report(s->kunwind, s->applet, copies);
	}
	if (stat[STK_STAT_NEW_PROCESS_LOST])
		fprintf(stderr, "WARNING: %llu new-process notifications lost; short-lived processes may "
			"show [unknown] frames\n", (unsigned long long)stat[STK_STAT_NEW_PROCESS_LOST]);
	if (s->opts->verbose) {
		struct stk_symbolizer_stats st;

		stk_symbolizer_get_stats(s->sym, &st);
		fprintf(stderr, "%s: symbolizer: %u processes (%u could not be read%s%s; %u exited, compacted; "
			"%u forgotten), mappings re-read %u times, %u files parsed, %u failed, %u forgotten\n", s->applet,
			st.processes, st.processes_failed, st.last_failure[0] ? ", last: " : "", st.last_failure,
			st.processes_exited, st.processes_forgotten, st.refreshes, st.files_parsed, st.files_failed,
			st.files_forgotten);
	}
}

void stk_session_begin_results(struct stk_session *s)
{
	char why[256];

	s->resolve_start = stk_now_ns(CLOCK_MONOTONIC);
	/* Checked here, not at start: reading kallsyms would delay the first event. */
	if (!s->opts->user_only && stk_symbolizer_kernel_status(s->sym, why, sizeof(why)) != 1)
		fprintf(stderr, "WARNING: kernel frames are [unknown]: %s\n", why);
}

/* Each key of stk_counts with its total, resolved into the list. */
struct collect_ctx {
	const struct stk_stack_resolver *resolver;
	struct stk_stack_list *list;
};

static int add_total(void *ctx, const void *key, uint64_t total)
{
	const struct collect_ctx *c = ctx;

	return stk_stack_resolve_total(c->resolver, c->list, key, total);
}

int stk_session_collect(struct stk_session *s, struct stk_stack_list *l, bool reset)
{
	struct collect_ctx c = { &s->resolver, l };
	int fd = bpf_map__fd(s->skel->maps.stk_counts);
	struct stk_stack_ref next;
	int ret = 0;

	stk_session_begin_results(s);
	/* copies user space counted (profile), then what the kernel counted (frame pointers where a copy had no room) */
	if (s->dwarf && !stk_dwarf_samples_by_hash(s->dwarf))
		ret = stk_dwarf_samples_collect(s->dwarf, l);
	if (!ret)
		ret = stk_percpu_counts_each(fd, sizeof(struct stk_stack_ref), add_total, &c);
	/* -i: each interval counts from zero, as bcc's does */
	if (reset)
		while (bpf_map_get_next_key(fd, NULL, &next) == 0 && bpf_map_delete_elem(fd, &next) == 0)
			;
	if (ret)
		stk_error(s->applet, "out of memory while reading the totals");
	return ret ? -1 : 0;
}

/* The report as printed: its time span the session's unless it says, the output options the session's. */
static void complete_report(const struct stk_session *s, struct stk_report *report, struct stk_output_opts *opts)
{
	if (!report->time_nanos)
		report->time_nanos = s->start_wall;
	if (!report->duration_nanos)
		report->duration_nanos = stk_now_ns(CLOCK_MONOTONIC) - s->start_mono;
	opts->delimiter = s->opts->delimiter;
	opts->verbose = s->opts->verbose;
	opts->lines = s->opts->lines;
}

void stk_session_describe(struct stk_session *s, const struct stk_report *in, const struct stk_output_opts *in_opts)
{
	struct stk_report report = *in;
	struct stk_output_opts opts = *in_opts;

	complete_report(s, &report, &opts);
	if (s->events)
		stk_event_sink_describe(stk_event_outputs_sink(s->events), s->applet, s->opts->command, &report, &opts);
}

int stk_session_print(struct stk_session *s, const struct stk_stack_list *list, const struct stk_report *in,
		      const struct stk_output_opts *in_opts)
{
	const struct stk_stack_opts *o = s->opts;
	size_t n = o->n_outputs;
	struct stk_report report = *in;
	struct stk_output_opts opts = *in_opts;
	int ret = 0;

	report.stacks = list->stacks;
	report.n_stacks = list->n;
	complete_report(s, &report, &opts);
	if (s->events)
		stk_event_sink_describe(stk_event_outputs_sink(s->events), s->applet, o->command, &report, &opts);
	for (size_t i = 0; i < (n ? n : 1); i++) {
		FILE *out = n ? stk_safe_output_stream(s->outs[i]) : stdout;

		char err[PATH_MAX + 128];

		opts.format = n ? o->output_formats[i] : o->format;
		if (stk_event_outputs_made(s->events, o, opts.format))
			continue; /* made from the recording when the capture ends */
		if (stk_output_write(out, &report, &opts) || fflush(out)) {
			stk_error(s->applet, "writing %s failed: %s", n ? o->output_paths[i] : "the results",
				  strerror(errno));
			ret = -1;
		} else if (n && stk_safe_output_commit(s->outs[i], err, sizeof(err))) {
			stk_error(s->applet, "writing %s", err);
			ret = -1;
		}
	}
	uint64_t missing = stk_dwarf_samples_missing(s->dwarf);
	if (missing > s->dwarf_missing_reported)
		fprintf(stderr, "WARNING: %llu stacks shown as [Missed ...]: their sample was lost in user space "
			"before it was unwound\n", (unsigned long long)(missing - s->dwarf_missing_reported));
	s->dwarf_missing_reported = missing;
	if (o->verbose) {
		fprintf(stderr, "%s: resolved and printed %zu stacks in %.1f ms\n", s->applet, list->n,
			(double)(stk_now_ns(CLOCK_MONOTONIC) - s->resolve_start) / 1e6);
		stk_symbolizer_runtime_report(s->sym, s->applet, stderr);
	}
	s->start_wall = stk_now_ns(CLOCK_REALTIME);
	s->start_mono = stk_now_ns(CLOCK_MONOTONIC);
	return ret;
}

int stk_session_results(struct stk_session *s, const struct stk_report *report, const struct stk_output_opts *opts)
{
	struct stk_stack_list list = { 0 };
	int ret = stk_session_collect(s, &list, false);

	if (!ret)
		ret = stk_session_print(s, &list, report, opts);
	stk_stack_list_free(&list);
	return ret;
}

int stk_session_capture(struct stk_session *s, void *run)
{
	const struct stk_stack_applet *c = &s->app;
	enum stk_run_event ev;
	int ret = 0;

	if (s->opts->format == STK_FORMAT_TEXT && !s->opts->n_outputs)
		c->header(run);
	while ((ev = stk_session_wait(s)) == STK_RUN_INTERVAL && c->interval) {
		stk_session_drain(s);
		if (c->interval(run))
			ret = 1;
	}
	/* Stop counting before reading, so the results are one snapshot. */
	c->detach(run);
	stopped(s, ev);
	if (c->results(run))
		ret = 1;
	if (s->events && stk_event_outputs_finish(s->events, s->applet, s->opts, s->outs))
		ret = 1;
	return ret;
}

void stk_session_close(struct stk_session *s)
{
	if (!s->applet) /* never opened */
		return;
	if (s->processes)
		stk_process_watch_free(s->processes);
	stk_event_outputs_free(s->events);
	stk_dwarf_samples_free(s->dwarf);
	stk_kernel_unwind_free(s->kunwind);
	stk_run_loop_free(s->loop);
	if (s->sweep_fd >= 0)
		close(s->sweep_fd);
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	if (s->sym)
		stk_symbolizer_free(s->sym);
	if (s->empty_btf_fd >= 0)
		close(s->empty_btf_fd);
	stk_btf_source_release(&s->btf);
	for (size_t i = 0; i < STK_MAX_OUTPUTS; i++)
		stk_safe_output_close(s->outs[i]);
	memset(s, 0, sizeof(*s));
}
