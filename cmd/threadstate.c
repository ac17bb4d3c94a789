/*
 * stk threadstate: what is every thread doing, sampled over time? Every
 * 1/F seconds one pass over all threads (core/threads/bpf/threads_source.c picks the task
 * iterator, the tracepoint state map or /proc); the active ones (see
 * core/threads/thread_active.h, -a for all) are either summed into a table of
 * average active threads per group every -i seconds, or appended to
 * hour-rotated CSV files with -o DIR.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/bpf/bpf_object.h"
#include "core/bpf/percpu_maps.h"
#include "bpf/stack_stats.h"
#include "core/btf/btf_source.h"
#include "core/base/clock.h"
#include "core/session/session.h"
#include "core/base/caps.h"
#include "core/base/log.h"
#include "core/ladder/climb.h"
#include "core/base/options.h"
#include "core/base/run_loop.h"
#include "core/options/stack_opts.h"
#include "core/session/dwarf_samples.h"
#include "core/sym/symbolize.h"
#include "core/threads/thread_group.h"
#include "core/threads/thread_select.h"
#include "core/eventlog/thread_rows.h"
#include "core/output/output.h"
#include "core/record/kinds.h"
#include "core/session/row_log.h"
#include "core/threads/thread_record.h"
#include "core/threads/thread_table.h"
#include "core/threads/bpf/threads_source.h"
#include "core/threads/stack_fold.h"
#include "core/snapshot/bpf/snapshot_stacks.h"
#include "bpf/pmp_types.h"
#include "core/base/dispatch.h"

#define APPLET "threadstate"
#define DEFAULT_GROUP "state,username,comm,syscall,wchan"
#define DEFAULT_TOP 20
/* Frames kept per user stack (-u), as many as the kernel's stack maps hold. */
#define USER_STACK_DEPTH 127
/* -u: how long the snapshot at start waits for threads on a CPU to be sampled. */
#define START_RUNNING_MS 20
/* Test hook: pretend the capture started at this UTC epoch (seconds), e.g. to cross an hour. */
#define FAKE_EPOCH_ENV "STK_THREADSTATE_FAKE_EPOCH"

struct ts_config {
	uint32_t *pids;
	size_t n_pids;
	const char *cgroup;
	bool all, kernel_stacks, user_stacks, verbose, list_columns, syscall_time;
	double hz;
	long interval_ms, duration_ms;
	uint64_t iterations, top;
	struct stk_group_spec group;
	const char *command;                      /* as typed (what the event log says of itself) */
	const char *out_dir;                       /* -o DIR: CSV */
	const char *parquet[STK_MAX_OUTPUTS];     /* -o FILE.parquet: the event log */
	size_t n_parquet;
	int source; /* enum stk_tsource, or -1 */
	const char *btf_file;
	struct stk_stack_opts stack; /* -u: --unwind and --stack-bytes, settled as the stack applets do */
};

static void print_help(void)
{
	printf("usage: stk threadstate [options]\n\n"
	       "Samples what every thread is doing (RUN on CPU, RUNQ waiting for a CPU, SLEEP,\n"
	       "DISK uninterruptible, STOPPED, ZOMBIE, IDLE), in which syscall and kernel function.\n"
	       "Without -o: every -i seconds a table of average active threads per group.\n"
	       "With -o DIR: samples appended to hour-rotated CSV files in DIR.\n\n"
	       "  -F, --frequency HZ          samples per second (default 20; 1 with -o)\n"
	       "  -i, --interval SECS         seconds per table (default 5)\n"
	       "  -g, --group COLS            group by these columns (default " DEFAULT_GROUP ")\n"
	       "  -G, --group-add COLS        add these columns to the default grouping\n"
	       "      --list-columns          print the columns -g and -G accept\n"
	       "  -t, --top N                 rows per table (default %d; 0: all)\n"
	       "  -a, --all                   keep every thread, not only active ones\n"
	       "  -p, --pid PID[,PID...]      only these processes (host PIDs)\n"
	       "      --cgroup PATH           only threads in this cgroup (a cgroup v2 or v1 directory)\n"
	       "  -k, --kernel-stacks         record kernel stacks (CSV stacks file, kstack column)\n"
	       "  -T, --syscall-time          time in the current syscall with the task_iter source too\n"
	       "                              (a BPF hook on every syscall; tracepoint_state always has it)\n"
	       "  -u, --user-stacks           record user stacks (taken at switch-out: implies --source tracepoint_state)\n"
	       "      --unwind fp|dwarf       -u: by frame pointers, or by CFI from a stack copy (default dwarf)\n"
	       "      --stack-bytes N         -u with --unwind dwarf: user stack copied per switch-out (default %d)\n"
	       "  -o, --output DIR            append samples to DIR/samples-YYYY-MM-DD-HH.csv (UTC; DIR is created)\n"
	       "  -o, --output FILE.parquet   a row per sample in the event log (docs/eventlog.md; stk report reads it)\n"
	       "      --host NAME             the event log's host column (default: this host's name)\n"
	       "  -d, --duration SECS         stop after SECS seconds\n"
	       "  -n, --iterations N          stop after N samples\n"
	       "      --source S              task_iter, tracepoint_state or proc instead of the first that works\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               source chosen, and the cost of each sample pass\n"
	       "  -h, --help                  this help\n",
	       DEFAULT_TOP, STK_STACK_BYTES_DEFAULT);
}

enum long_only {
	OPT_LIST_COLUMNS = 1000,
	OPT_CGROUP,
	OPT_SOURCE,
	OPT_BTF,
	OPT_UNWIND,
	OPT_STACK_BYTES,
	OPT_HOST,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

static int parse_group(struct stk_group_spec *spec, const char *opt, const char *text)
{
	char err[128], msg[256];

	if (stk_group_spec_add(spec, text, err, sizeof(err)) == 0)
		return 0;
	snprintf(msg, sizeof(msg), "%s %%s: %s", opt, err);
	return usage_error(msg, text);
}

static int check_args(struct ts_config *cfg, bool hz_given)
{
	char msg[512];

	if (!hz_given)
		cfg->hz = cfg->out_dir || cfg->n_parquet ? 1 : 20;
	if (cfg->n_pids && stk_check_targets(cfg->pids, cfg->n_pids, "-p", NULL, 0, "-t", msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->cgroup && stk_check_cgroup_dir(cfg->cgroup, msg, sizeof(msg)))
		return usage_error("--cgroup %s: %s", cfg->cgroup, msg);
	if (cfg->user_stacks && cfg->source >= 0 && cfg->source != STK_TSOURCE_TRACEPOINT)
		return usage_error("-u: user stacks need --source tracepoint_state%s", "");
	return 0;
}

/* Everything a run owns, released in teardown(). */
struct ts_run {
	struct ts_config cfg;
	struct stk_thread_sampler *source;
	struct stk_symbolizer *sym;
	struct stk_thread_selector *select; /* the threads kept, and what /proc adds to them */
	struct stk_group *group;
	struct stk_thread_record *record;
	struct stk_row_log *log; /* -o FILE.parquet */
	struct stk_event_desc state_kind; /* its rows' kind */
	struct stk_run_loop *loop;
	struct stk_thread_batch batch;
	struct stk_session session; /* BTF and privileges for the BPF sources */
	struct stk_dwarf_samples *dwarf; /* -u with --unwind dwarf: the user stacks by content hash */
	struct stk_snap_stacks *start_stacks; /* -u: every thread's user stack when the capture started */
	int64_t fake_epoch_ns, mono_start;
	int64_t source_ns, select_ns, pass_count; /* -v: cost of the passes */
};

static int parse_args(void *run, const struct stk_invocation *inv)
{
	int argc = inv->argc;
	char **argv = inv->argv;
	struct ts_config *cfg = &((struct ts_run *)run)->cfg;
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "interval", required_argument, NULL, 'i' },
		{ "group", required_argument, NULL, 'g' },
		{ "group-add", required_argument, NULL, 'G' },
		{ "list-columns", no_argument, NULL, OPT_LIST_COLUMNS },
		{ "top", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "kernel-stacks", no_argument, NULL, 'k' },
		{ "user-stacks", no_argument, NULL, 'u' },
		{ "syscall-time", no_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "stack-bytes", required_argument, NULL, OPT_STACK_BYTES },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct stk_group_spec added = { 0 };
	enum stk_format fmt;
	bool hz_given = false, group_given = false;
	char msg[512];
	enum stk_tsource src;
	char *end;
	int c;

	cfg->command = inv->command;
	cfg->interval_ms = 5000;
	cfg->top = DEFAULT_TOP;
	stk_stack_opts_init(&cfg->stack, 't', 127);
	cfg->source = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":F:i:g:G:t:ap:kuTo:d:n:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			cfg->hz = strtod(optarg, &end);
			if (end == optarg || *end || !(cfg->hz > 0 && cfg->hz <= 1000))
				return usage_error("-F %s: expected a frequency in Hz, above 0 and at most 1000", optarg);
			hz_given = true;
			break;
		case 'i':
			if (stk_parse_seconds(optarg, &cfg->interval_ms))
				return usage_error("-i %s: expected a positive number of seconds", optarg);
			break;
		case 'g':
			cfg->group.n = 0;
			if (parse_group(&cfg->group, "-g", optarg))
				return -1;
			group_given = true;
			break;
		case 'G':
			if (parse_group(&added, "-G", optarg))
				return -1;
			break;
		case OPT_LIST_COLUMNS: cfg->list_columns = true; break;
		case 't':
			if (stk_parse_u64(optarg, 0, 1000000, &cfg->top))
				return usage_error("-t %s: expected a whole number of rows (0: all)", optarg);
			break;
		case 'a': cfg->all = true; break;
		case 'p':
			free(cfg->pids);
			cfg->pids = NULL;
			if (stk_parse_id_list(optarg, &cfg->pids, &cfg->n_pids))
				return usage_error("-p %s: expected PID[,PID...] of positive numbers", optarg);
			break;
		case OPT_CGROUP: cfg->cgroup = optarg; break;
		case 'k': cfg->kernel_stacks = true; break;
		case 'u': cfg->user_stacks = true; break;
		case 'T': cfg->syscall_time = true; break;
		case 'o':
			if (stk_format_from_path(optarg, &fmt) == 0 && fmt == STK_FORMAT_PARQUET) {
				if (cfg->n_parquet == STK_MAX_OUTPUTS)
					return usage_error("-o %s: at most %d event logs", optarg, STK_MAX_OUTPUTS);
				cfg->parquet[cfg->n_parquet++] = optarg;
			} else if (cfg->out_dir) {
				return usage_error("-o %s: one CSV directory (-o %s given already)", optarg, cfg->out_dir);
			} else {
				cfg->out_dir = optarg;
			}
			break;
		case 'd':
			if (stk_parse_seconds(optarg, &cfg->duration_ms))
				return usage_error("-d %s: expected a positive number of seconds", optarg);
			break;
		case 'n':
			if (stk_parse_u64(optarg, 1, UINT64_MAX, &cfg->iterations))
				return usage_error("-n %s: expected a positive whole number of samples", optarg);
			break;
		case OPT_SOURCE:
			if (stk_tsource_from_name(optarg, &src))
				return usage_error("--source %s: expected task_iter, tracepoint_state or proc", optarg);
			cfg->source = (int)src;
			break;
		case OPT_BTF: cfg->btf_file = optarg; break;
		case OPT_UNWIND:
		case OPT_STACK_BYTES:
		case OPT_HOST: {
			char msg[256];
			int opt = c == OPT_UNWIND ? STK_OPT_UNWIND : c == OPT_STACK_BYTES ? STK_OPT_STACK_BYTES : STK_OPT_HOST;

			if (stk_stack_opt(&cfg->stack, opt, optarg, msg, sizeof(msg)) != 1)
				return usage_error("%s", msg);
			break;
		}
		case 'v': cfg->verbose = true; cfg->stack.verbose = true; break;
		case 'h': print_help(); return 1;
		default: return usage_error("%s", stk_getopt_problem(c, APPLET, argv, msg, sizeof(msg)));
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!group_given) {
		char err[128];
		stk_group_spec_add(&cfg->group, DEFAULT_GROUP, err, sizeof(err));
	}
	for (size_t i = 0; i < added.n; i++) {
		char err[128];
		if (stk_group_spec_add(&cfg->group, stk_tcol_name(added.cols[i]), err, sizeof(err)))
			return usage_error("-G: %s", err);
	}
	if (cfg->list_columns) {
		for (int col = 0; col < STK_TCOL_COUNT; col++)
			printf("%-10s %s\n", stk_tcol_name(col), stk_tcol_description(col));
		return 1;
	}
	return check_args(cfg, hz_given);
}

static int sample_once(struct ts_run *run)
{
	struct stk_thread_batch *b = &run->batch;
	char err[512];

	stk_thread_batch_reset(b);
	int64_t start = stk_now_ns(CLOCK_MONOTONIC);
	stk_dwarf_samples_drain(run->dwarf); /* every user stack sample sent before this pass, unwound */
	if (stk_tsource_sample(run->source, b)) {
		stk_error(APPLET, "a sample pass failed: %s", strerror(errno));
		return -1;
	}
	int64_t sampled = stk_now_ns(CLOCK_MONOTONIC);
	if (run->fake_epoch_ns)
		b->wall_ns = run->fake_epoch_ns + (b->mono_ns - run->mono_start);
	stk_thread_select(run->select, b);
	run->source_ns += sampled - start;
	run->select_ns += stk_now_ns(CLOCK_MONOTONIC) - sampled;
	run->pass_count++;
	for (size_t i = 0; i < b->n; i++) {
		if (!b->threads[i].keep)
			continue;
		if (run->group && stk_group_add(run->group, &b->threads[i])) {
			stk_error(APPLET, "out of memory while grouping");
			return -1;
		}
		if (run->record &&
		    stk_thread_record_write(run->record, &b->threads[i], b->wall_ns, err, sizeof(err))) {
			stk_error(APPLET, "-o %s: %s", run->cfg.out_dir, err);
			return -1;
		}
		if (run->log) {
			struct stk_ev_row row;

			stk_ev_thread_row(&b->threads[i], b->wall_ns, &row);
			stk_row_log_add(run->log, &row);
		}
	}
	if (run->group)
		stk_group_end_sample(run->group);
	return 0;
}

static void print_table(struct ts_run *run, int64_t start_ns, int64_t end_ns)
{
	size_t n;
	const struct stk_group_row *rows = stk_group_sorted(run->group, &n);
	struct stk_thread_table table = {
		.spec = &run->cfg.group,
		.rows = rows,
		.n_rows = n,
		.top = (size_t)run->cfg.top,
		.samples = stk_group_samples(run->group),
		.start_ns = start_ns,
		.end_ns = end_ns,
		.source = stk_tsource_name(stk_tsource_kind(run->source)),
	};

	stk_thread_table_print(stdout, &table);
	stk_group_reset(run->group);
}

/* -u with --unwind dwarf: a thread's user stack, unwound from its sample, folded (NULL: not arrived). */
static char *fold_user_hash(void *ctx, uint32_t pid, uint64_t hash)
{
	struct ts_run *run = ctx;
	unsigned long long addrs[USER_STACK_DEPTH];
	const uint64_t *ips;
	size_t n;

	if (!run->dwarf)
		return NULL;
	/* Not there yet: the thread switched out again after this pass began, its sample is still buffered. */
	if (stk_dwarf_samples_user_frames(run->dwarf, hash, &ips, &n)) {
		stk_dwarf_samples_drain(run->dwarf);
		if (stk_dwarf_samples_user_frames(run->dwarf, hash, &ips, &n))
			return NULL;
	}
	if (!n)
		return NULL;
	if (n > USER_STACK_DEPTH)
		n = USER_STACK_DEPTH;
	for (size_t i = 0; i < n; i++)
		addrs[i] = ips[i];
	return stk_fold_addrs(run->sym, pid, addrs, n, true, NULL, 0);
}

/* -u: a thread blocked since before the start has not switched out since: its stack at start. */
static char *user_stack_at_start(void *ctx, uint32_t tid)
{
	return stk_snap_stacks_user(((struct ts_run *)ctx)->start_stacks, tid);
}

/* -u: one snapshot of every wanted thread's user stack, once the source watches switches. */
static void take_start_stacks(struct ts_run *run, const char *btf_path, bool kernel_btf)
{
	const struct ts_config *cfg = &run->cfg;
	const struct stk_snap_request req = {
		.want = { .pids = cfg->pids, .n_pids = cfg->n_pids },
		.self_tgid = (uint32_t)getpid(),
		.stack_bytes = cfg->stack.stack_bytes < STK_PMP_STACK_MAX ? cfg->stack.stack_bytes : STK_PMP_STACK_MAX,
		.running_ms = START_RUNNING_MS,
		.btf_custom_path = btf_path,
		.kernel_btf = kernel_btf,
		.never_stop = true,
	};
	char err[1024];

	run->start_stacks = stk_snap_stacks_take(&req, run->sym, err, sizeof(err));
	if (!run->start_stacks)
		fprintf(stderr, "WARNING: threadstate: -u: threads blocked since before the start show no user stack "
			"until they next run: %s\n", err);
	else if (cfg->verbose)
		fprintf(stderr, "threadstate: user stacks at start of %zu threads (thread snapshot: %s)\n",
			stk_snap_stacks_count(run->start_stacks), stk_snap_stacks_mech(run->start_stacks));
}

/* The unwinder of -u's dwarf samples, when the source sends them. 0 or -1 (said). */
static int start_dwarf(struct ts_run *run)
{
	struct bpf_map *samples = stk_tsource_user_samples(run->source);
	const struct stk_dwarf_opts o = { .max_depth = USER_STACK_DEPTH, .user_only = true, .by_hash = true };

	if (!samples)
		return 0;
	run->dwarf = stk_dwarf_samples_start(APPLET, samples, NULL, run->sym, NULL, &o);
	return run->dwarf ? 0 : -1;
}

/* Samples that found the buffer full took frame pointers: said once, at the end. */
static void report_user_stack_losses(const struct ts_run *run)
{
	const struct bpf_map *stats = run->source ? stk_tsource_user_stats(run->source) : NULL;
	uint64_t lost = stats ? stk_percpu_sum(stats, STK_STAT_SAMPLES_LOST) : 0;

	const char *why;
	uint64_t not_unwound = stk_dwarf_samples_not_unwound(run->dwarf, &why);

	if (lost)
		fprintf(stderr, "WARNING: %llu user stack samples found the sample buffer full (its reader short of "
			"CPU) and were walked by frame pointers instead; lower --stack-bytes (now %u)\n",
			(unsigned long long)lost, run->cfg.stack.stack_bytes);
	if (not_unwound)
		fprintf(stderr, "WARNING: %llu user stacks were not unwound and show their leaf frame only (%s)\n",
			(unsigned long long)not_unwound, why);
}

static int open_source(struct ts_run *run)
{
	struct ts_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	const struct stk_btf_source *btf = &session->btf;
	struct stk_caps caps;
	char err[1024];
	bool can_bpf = stk_caps_read_self(&caps) == 0 && stk_caps_can_trace(&caps);

	if (cfg->source >= 0 && cfg->source != STK_TSOURCE_PROC && !can_bpf) {
		stk_error(APPLET, "--source %s needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)",
			  stk_tsource_name(cfg->source));
		return -1;
	}
	if (can_bpf && cfg->source != STK_TSOURCE_PROC && stk_session_open_bpf(session, APPLET, cfg->verbose, cfg->btf_file))
		return -1;
	/* -u takes stacks at switch-out from the tracepoint source: copies or frame pointers */
	if (cfg->user_stacks && can_bpf && stk_session_plan_unwind(session, &cfg->stack, true, STK_UNWIND_DWARF))
		return -1;
	struct stk_tsource_request req = {
		.pids = cfg->pids,
		.n_pids = cfg->n_pids,
		.self_tgid = (uint32_t)getpid(),
		.kernel_stacks = cfg->kernel_stacks,
		.user_stacks = cfg->user_stacks,
		.all = cfg->all,
		.syscall_time = cfg->syscall_time,
		.btf_custom_path = can_bpf ? stk_session_btf_path(session) : NULL,
		.kernel_btf = btf->kernel_btf, /* the iterator's attach target is in the kernel's own BTF */
		/* Without BPF privileges only /proc can work; user stacks only the tracepoints take. */
		.forced = !can_bpf ? stk_tsource_name(STK_TSOURCE_PROC) : cfg->source >= 0 ? stk_tsource_name(cfg->source)
			  : cfg->user_stacks ? stk_tsource_name(STK_TSOURCE_TRACEPOINT) : NULL,
		.sym = run->sym,
		.user_dwarf = cfg->user_stacks && can_bpf && session->unwind.rung == STK_UNWIND_DWARF,
		.stack_bytes = cfg->stack.stack_bytes,
		.user_stack_by_hash = fold_user_hash,
		.user_stack_ctx = run,
		.user_stack_at_start = user_stack_at_start,
	};
	run->source = stk_tsource_open(&req, err, sizeof(err));
	if (run->source && cfg->user_stacks && can_bpf)
		take_start_stacks(run, req.btf_custom_path, btf->kernel_btf);
	stk_btf_source_release(&session->btf); /* the programs are loaded: an embedded BTF's memfd is done */
	if (!run->source) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (cfg->user_stacks && stk_tsource_kind(run->source) != STK_TSOURCE_TRACEPOINT) {
		stk_error(APPLET, "-u: user stacks need the tracepoint_state source; this kernel gives %s "
			  "(try --source tracepoint_state)", stk_tsource_name(stk_tsource_kind(run->source)));
		return -1;
	}
	if (start_dwarf(run))
		return -1;
	if (cfg->verbose) {
		char passed[1024];

		fprintf(stderr, "threadstate: source %s%s; BTF %s%s%s%s\n", stk_tsource_name(stk_tsource_kind(run->source)),
			stk_climb_passed_over(stk_tsource_tried(run->source), passed, sizeof(passed)),
			stk_btf_kind_name(btf->kind), can_bpf ? "" : "; no BPF privileges",
			cfg->user_stacks ? "; unwind " : "",
			cfg->user_stacks ? stk_unwind_rung_name(session->unwind.rung) : "");
	}
	return 0;
}

static int setup(void *arg)
{
	struct ts_run *run = arg;
	struct ts_config *cfg = &run->cfg;
	char err[512];
	const char *fake = getenv(FAKE_EPOCH_ENV);

	run->mono_start = stk_now_ns(CLOCK_MONOTONIC);
	if (fake && *fake)
		run->fake_epoch_ns = (int64_t)(strtod(fake, NULL) * 1e9);
	/* -u: the files' CFI for --unwind dwarf (settled later; kept either way, only -u pays for it) */
	const struct stk_symbolizer_opts so = { .keep_elf = cfg->user_stacks };
	const struct stk_thread_select_opts sel = { .cgroup = cfg->cgroup, .all = cfg->all,
						    .kernel_stacks = cfg->kernel_stacks };
	if (!(run->sym = stk_symbolizer_new(&so)) || !(run->select = stk_thread_selector_new(&sel, run->sym))) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	if (cfg->out_dir) {
		run->record = stk_thread_record_new(cfg->out_dir, err, sizeof(err));
		if (!run->record) {
			stk_error(APPLET, "-o %s", err);
			return -1;
		}
	}
	if (cfg->n_parquet) {
		const struct stk_rec_kind_info state = stk_rec_kind(STK_REC_KIND_STATE);

		/* the strings of state's row live in the program: the log may keep pointing at them */
		run->state_kind = state.event;
		if (!(run->log = stk_row_log_open(cfg->parquet, cfg->n_parquet, &run->state_kind, true, cfg->stack.host, err,
						  sizeof(err)))) {
			stk_error(APPLET, "-o %s", err);
			return -1;
		}
	}
	if (!cfg->out_dir && !cfg->n_parquet && !(run->group = stk_group_new(&cfg->group))) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	if (open_source(run))
		return -1;
	long period_ms = (long)(1000.0 / cfg->hz + 0.5);
	run->loop = stk_run_loop_new(cfg->duration_ms, period_ms ? period_ms : 1, err, sizeof(err));
	if (!run->loop) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	/* Samples are unwound as they come, between passes too. */
	if (run->dwarf && stk_dwarf_samples_watch(APPLET, run->dwarf, run->loop))
		return -1;
	return 0;
}

static void teardown(void *arg)
{
	struct ts_run *run = arg;
	stk_run_loop_free(run->loop);
	stk_dwarf_samples_free(run->dwarf); /* its buffer reads a map of the source's */
	stk_snap_stacks_free(run->start_stacks);
	stk_tsource_free(run->source);
	stk_thread_record_free(run->record);
	stk_row_log_free(run->log);
	stk_group_free(run->group);
	stk_thread_selector_free(run->select);
	if (run->sym)
		stk_symbolizer_free(run->sym);
	stk_thread_batch_free(&run->batch);
	stk_session_close(&run->session);
	free(run->cfg.pids);
	stk_stack_opts_free(&run->cfg.stack);
}

static int64_t wall_now(const struct ts_run *run)
{
	if (run->fake_epoch_ns)
		return run->fake_epoch_ns + (stk_now_ns(CLOCK_MONOTONIC) - run->mono_start);
	return stk_now_ns(CLOCK_REALTIME);
}

/* -o FILE.parquet: the footers (what a report of it prints: the samples per thread) and the files put in place. */
static int finish_log(struct ts_run *run, int64_t start)
{
	const struct stk_report report = {
		.value_type = run->state_kind.value.type, .value_unit = run->state_kind.value.unit,
		.time_nanos = start, .duration_nanos = wall_now(run) - start, .title = "stk threadstate",
	};
	char err[PATH_MAX + 256];

	if (stk_row_log_finish(run->log, APPLET, run->cfg.command, &report, err, sizeof(err)) == 0)
		return 0;
	stk_error(APPLET, "-o %s", err);
	return -1;
}

static int run_capture(void *arg)
{
	struct ts_run *run = arg;
	const struct ts_config *cfg = &run->cfg;
	int64_t capture_start = wall_now(run);
	int64_t interval_start = capture_start, next_print = stk_now_ns(CLOCK_MONOTONIC) + cfg->interval_ms * 1000000;
	uint64_t samples = 0;
	int ret = 0;

	if (!run->record && !run->log)
		printf("Sampling %s threads at %g Hz, a table every %g s... Hit Ctrl-C to end.\n",
		       cfg->all ? "all" : "active", cfg->hz, (double)cfg->interval_ms / 1000.0);
	fflush(stdout);
	for (;;) {
		if (sample_once(run)) {
			ret = 1;
			break;
		}
		if (cfg->iterations && ++samples >= cfg->iterations)
			break;
		if (run->group && stk_now_ns(CLOCK_MONOTONIC) >= next_print) {
			int64_t now = wall_now(run);
			print_table(run, interval_start, now);
			interval_start = now;
			next_print += cfg->interval_ms * 1000000;
		}
		enum stk_run_event ev = stk_run_loop_wait(run->loop);
		if (ev == STK_RUN_ERROR) {
			stk_error(APPLET, "waiting failed: %s", strerror(errno));
			ret = 1;
			break;
		}
		if (ev != STK_RUN_INTERVAL)
			break;
	}
	if (run->group && stk_group_samples(run->group))
		print_table(run, interval_start, wall_now(run));
	report_user_stack_losses(run);
	if (run->log && finish_log(run, capture_start))
		ret = 1;
	if (cfg->verbose && run->pass_count)
		fprintf(stderr, "threadstate: %lld sample passes, per pass on average: source %.3f ms "
			"(%zu threads), active rule and /proc details %.3f ms\n", (long long)run->pass_count,
			(double)run->source_ns / (double)run->pass_count / 1e6, run->batch.n,
			(double)run->select_ns / (double)run->pass_count / 1e6);
	return ret;
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = run_capture, .teardown = teardown,
};

STK_APPLET(threadstate, .name = "threadstate", .summary = "what is every thread doing, sampled over time?",
	   .steps = &steps, .run_size = sizeof(struct ts_run), .bare_link = true, .rank = 40);
