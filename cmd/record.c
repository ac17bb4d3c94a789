/*
 * stk record: every kind of event in one capture, one log. -e KIND[:N],...
 * takes cpu (profile's sampling), offcpu (offcputime's blocks), each stk
 * resources kind (syscall and iorq among them) and state (threadstate's
 * samples of every thread); core/record/kinds.c is the table. Each kind's
 * source climbs its own ladder with trials in objects of their own
 * (core/attach/: sched_switch, resources' sources, the task iterator);
 * then the chosen programs are loaded together in ONE object, with one
 * set of unwind tables and one ring buffer, each source's configuration
 * headed by its own ref.type so kinds stay apart in the counts and the
 * events. Every event is a row of the event log; every output, text too,
 * is made from that recording, so `stk report` over it prints what the
 * capture printed.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/offcputime_types.h"
#include "bpf/profile_types.h"
#include "bpf/resources_types.h"
#include "bpf/stackcount_types.h"
#include "core/attach/attach_perf.h"
#include "core/attach/attach_resources.h"
#include "core/attach/attach_sched.h"
#include "core/attach/probe_kinds.h"
#include "core/base/cpus.h"
#include "core/base/dispatch.h"
#include "core/base/kernel_release.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/tracefs.h"
#include "core/bpf/bpf_object.h"
#include "core/eventlog/event_host.h"
#include "core/eventlog/event_series.h"
#include "core/eventlog/thread_rows.h"
#include "core/ladder/climb.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/record/kinds.h"
#include "core/session/session.h"
#include "core/threads/bpf/threads_iter.h"
#include "core/threads/bpf/threads_source.h"
#include "core/threads/thread_select.h"

#define APPLET "record"
/* offcpu: blocks shorter than this are not counted, as offcputime's default -m 1 */
#define OFFCPU_MIN_NS 1000

struct rec_config {
	struct stk_stack_opts common; /* -p -t -U -K -o --format duration ... shared with the other stack applets */
	struct stk_rec_request want;  /* -e */
	struct stk_res_request res;   /* resources' kinds (from -e), --mechanism of theirs, --min-latency */
	const char *offcpu_mechanism, *state_source; /* --mechanism offcpu=RUNG, state=RUNG */
	char kinds_text[512];         /* every -e, joined: the report's title */
	const char *series_dir;       /* -o DIR/: a series of files there (core/eventlog/event_series.h) */
	struct stk_ev_series_opts series; /* --rotate, --flush, --max-files, --max-size */
	const char *series_opt;       /* the first of those given, for the message when there is no DIR/ */
	char series_path[PATH_MAX];   /* --layout hive: DIR/host=HOST, the series' own directory */
};

static void print_kinds(void)
{
	for (int k = 0; k < STK_REC_KIND_COUNT; k++) {
		const struct stk_rec_kind_info i = stk_rec_kind((enum stk_rec_kind)k);

		printf("        %-12s %s\n", i.name, i.what);
	}
}

static void print_help(void)
{
	printf("usage: stk record [-e KIND[:N][,KIND[:N]...]] [options] [duration]\n\n"
	       "Records every kind of event asked for in one capture: each event a row of one event log\n"
	       "(-o FILE.parquet; docs/eventlog.md), which `stk report` prints in any format, a kind at a time\n"
	       "or all together. Without -o the totals of every kind are printed from the recording.\n"
	       "duration: seconds to record (default: until Ctrl-C or SIGTERM).\n\n"
	       "  -e, --event KIND[:N],...    what to record (may be repeated; default " STK_REC_DEFAULT_KINDS ",\n"
	       "                              the flight recorder's set); cpu:HZ and state:HZ sample N times a\n"
	       "                              second, the others take one event in N (weight x N)\n");
	print_kinds();
	printf("  -p, --pid PID[,PID...]      only these processes (host PIDs)\n"
	       "  -t, --tid TID[,TID...]      only these threads; stacks are kept per thread (not with state)\n"
	       "      --cgroup PATH           only tasks in this cgroup v2 directory (and below)\n"
	       STK_STACK_CHOICES_HELP,
	       STK_STACK_STORAGE_DEFAULT);
	stk_output_help(stdout, STK_OFFER_ALL, STK_FORMAT_TEXT);
	printf("     (-o DIR/)                a series of Parquet files in DIR (a path ending in / or a directory;\n"
	       "                              made 0700 when missing): stk-FIRST-END.parquet, UTC; the file being\n"
	       "                              written is hidden until it is complete (docs/record.md)\n"
	       "      --rotate TIME           DIR/: a new file every TIME (10m, 1h; default: one file), and on SIGHUP\n"
	       "      --max-files N           DIR/: keep at most N files, the oldest removed first\n"
	       "      --max-size SIZE         DIR/: keep at most SIZE bytes of files (512M, 2G), oldest removed first\n"
	       "      --flush TIME            DIR/: rows on disk every TIME (default 1m): what a crash can lose\n"
	       "      --layout hive           DIR/: files in DIR/host=HOST/date=YYYY-MM-DD/ (UTC; HOST: --host or this\n"
	       "                              host's name), as DuckDB, Spark and Trino read partitions (default: flat)\n");
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       STK_EVENT_HELP
	       STK_RES_MIN_LATENCY_HELP
	       "      --mechanism KIND=M,...  a kind's mechanism instead of the first that works (offcpu: tp_btf,\n"
	       "                              raw_tp, tracepoint, kprobe; state: task_iter, proc; resources' kinds\n"
	       "                              as stk resources takes them)\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "      --list-kinds            print the kinds, one a line, and exit\n"
	       "  -v, --verbose               address and module for every frame; mechanisms and losses\n"
	       "  -h, --help                  this help\n");
}

enum rec_long_opt {
	OPT_MECHANISM = STK_OPT_APPLET,
	OPT_LIST_KINDS,
	OPT_MIN_LATENCY,
	OPT_CGROUP,
	OPT_ROTATE,
	OPT_MAX_FILES,
	OPT_MAX_SIZE,
	OPT_FLUSH,
	OPT_LAYOUT,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* Everything the capture owns, released in one place. */
struct rec_run {
	struct rec_config cfg;
	struct stk_session session;
	struct stk_bpf *skel; /* the one object */
	int *cpus;
	size_t n_cpus;
	/* the sources of the kinds asked for */
	struct stk_perf_attachment *cpu;
	struct stk_sched_request sched_req;
	struct stk_sched_attachment *offcpu;
	struct stk_res_attach_request res_req;
	struct stk_res_attachment res;
	struct stk_tsource_request ts_req;
	const char *iter_program;   /* state: the task iterator's program (NULL: /proc) */
	char state_tried[600];      /* state: the rung passed over, and why */
	struct stk_thread_sampler *threads;
	/* the probe pattern (stackcount's): its targets, the mechanism its trial chose, its links */
	struct stk_probe_targets probe_targets;
	struct stk_probe_request probe_req;
	const char *probe_mechanism;
	struct stk_probe_set probes;
	struct stk_thread_selector *select;
	struct stk_thread_batch batch;
	/* each kind's ref.type is its enum stk_rec_kind: how it is shown, recorded and reported */
	struct stk_weight_kind kinds[STK_REC_KIND_COUNT];
	struct stk_event_desc events[STK_REC_KIND_COUNT];
	struct stk_value_type types[STK_REC_KIND_COUNT];
	size_t n_types;
	char title[600];
};

static bool on(const struct rec_run *run, enum stk_rec_kind k)
{
	return run->cfg.want.on[k];
}

static bool any_resources(const struct rec_run *run)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		if (on(run, stk_rec_kind_of_res((enum stk_res_kind)k)))
			return true;
	return false;
}

/* --mechanism's items: offcpu=RUNG, state=RUNG, or a resources kind's (its own parser). */
static int mechanism_item(void *ctx, const char *item, size_t n)
{
	struct rec_config *cfg = ctx;
	char text[64], msg[512];
	const char *eq = memchr(item, '=', n);

	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) ? n : sizeof(text) - 1), item);
	if (eq && (size_t)(eq - item) == 6 && strncmp(item, "offcpu", 6) == 0) {
		if (stk_rung_check(STK_ATTACH_SCHED_SWITCH, "--mechanism offcpu", text + 7, msg, sizeof(msg)))
			return usage_error("%s", msg);
		cfg->offcpu_mechanism = eq + 1;
		return 0;
	}
	if (eq && (size_t)(eq - item) == 5 && strncmp(item, "state", 5) == 0) {
		if (strcmp(text + 6, "task_iter") && strcmp(text + 6, "proc"))
			return usage_error("--mechanism state=%s: state takes task_iter or proc", text + 6);
		cfg->state_source = strcmp(text + 6, "proc") == 0 ? "proc" : "task_iter";
		return 0;
	}
	if (stk_res_request_parse_mechanisms(&cfg->res, text, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* "cpu:99,offcpu" of every -e, for the title. */
static void note_kinds(struct rec_config *cfg, const char *spec)
{
	size_t used = strlen(cfg->kinds_text);

	snprintf(cfg->kinds_text + used, sizeof(cfg->kinds_text) - used, "%s%s", used ? "," : "", spec);
}

static int check_args(struct rec_config *cfg)
{
	char msg[512];

	if (stk_rec_request_empty(&cfg->want)) { /* the flight recorder's set */
		if (stk_rec_request_parse(&cfg->want, STK_REC_DEFAULT_KINDS, msg, sizeof(msg)))
			return usage_error("%s", msg);
		note_kinds(cfg, STK_REC_DEFAULT_KINDS);
	}
	if (stk_rec_request_check(&cfg->want, msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->common.n_pids && cfg->common.n_tids)
		return usage_error("-p and -t are mutually exclusive%s", "");
	if (cfg->want.on[STK_REC_KIND_STATE] && cfg->common.n_tids)
		return usage_error("-e state samples whole processes: -t is not for it (use -p)%s", "");
	stk_rec_request_resources(&cfg->want, &cfg->res);
	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (cfg->res.forced[s] && !stk_res_request_wants(&cfg->res, (enum stk_res_source)s)) {
			stk_res_source_kinds(&cfg->res, (enum stk_res_source)s, true, msg, sizeof(msg));
			return usage_error("--mechanism for %s, which -e does not ask for", msg);
		}
	}
	if (cfg->offcpu_mechanism && !cfg->want.on[STK_REC_KIND_OFFCPU])
		return usage_error("--mechanism for offcpu, which -e does not ask for%s", "");
	if (cfg->state_source && !cfg->want.on[STK_REC_KIND_STATE])
		return usage_error("--mechanism for state, which -e does not ask for%s", "");
	return 0;
}

/* The probe pattern, parsed as stackcount parses it. 0, or -1 after the error. */
static int parse_probe(struct rec_run *run)
{
	char msg[640];

	if (!run->cfg.want.on[STK_REC_KIND_PROBE])
		return 0;
	if (stk_probe_pattern_parse(run->cfg.want.probe, &run->probe_targets.pattern, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* --rotate, --max-files, --max-size, --flush, --layout. 0, or -1 after the error. */
static int series_opt(struct rec_config *cfg, int c, const char *arg)
{
	struct stk_ev_series_opts *s = &cfg->series;

	if (!cfg->series_opt)
		cfg->series_opt = c == OPT_ROTATE ? "--rotate" : c == OPT_MAX_FILES ? "--max-files"
				: c == OPT_MAX_SIZE ? "--max-size" : c == OPT_LAYOUT ? "--layout" : "--flush";
	switch (c) {
	case OPT_LAYOUT:
		if (strcmp(arg, "hive") != 0 && strcmp(arg, "flat") != 0)
			return usage_error("--layout %s: expected flat or hive", arg);
		s->hive = strcmp(arg, "hive") == 0;
		return 0;
	case OPT_ROTATE:
		if (stk_parse_duration(arg, &s->rotate_ns) || s->rotate_ns < 1000000000LL)
			return usage_error("--rotate %s: expected a time of at least 1s (30s, 10m, 1h)", arg);
		return 0;
	case OPT_FLUSH:
		if (stk_parse_duration(arg, &s->flush_ns) || s->flush_ns < 100000000LL)
			return usage_error("--flush %s: expected a time of at least 100ms (10s, 1m)", arg);
		return 0;
	case OPT_MAX_FILES:
		if (stk_parse_u64(arg, 1, UINT32_MAX, &s->max_files))
			return usage_error("--max-files %s: expected a whole number from 1", arg);
		return 0;
	default:
		if (stk_parse_size(arg, &s->max_bytes))
			return usage_error("--max-size %s: expected a size (512M, 2G)", arg);
		return 0;
	}
}

/* Whether -o path names a directory: it ends in '/', or one is there. */
static bool names_dir(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* -o DIR/ taken out of the -o files: the recording's series, alone. 0, or -1 after the error. */
static int take_series_dir(struct rec_config *cfg)
{
	struct stk_stack_opts *o = &cfg->common;
	size_t kept = 0;

	for (size_t i = 0; i < o->n_outputs; i++) {
		if (!names_dir(o->output_paths[i])) {
			o->output_paths[kept++] = o->output_paths[i];
			continue;
		}
		if (cfg->series_dir)
			return usage_error("-o %s: one directory a recording (-o %s given)", o->output_paths[i],
					   cfg->series_dir);
		cfg->series_dir = o->output_paths[i];
	}
	o->n_outputs = kept;
	if (cfg->series_dir && (kept || o->format_given))
		return usage_error("-o %s: a series of Parquet files is the only output (report other formats from it "
				   "with stk report %s)", cfg->series_dir, cfg->series_dir);
	if (!cfg->series_dir && cfg->series_opt)
		return usage_error("%s is for a series of files: add -o DIR/", cfg->series_opt);
	if (cfg->series.hive) {
		/* DIR/host=HOST/date=YYYY-MM-DD/: the host's series, its dates made by the series */
		char host[STK_EV_HOST_MAX + 1];
		size_t n = strlen(cfg->series_dir);

		if (o->host)
			snprintf(host, sizeof(host), "%s", o->host);
		else
			stk_ev_host_default(host, sizeof(host));
		while (n > 1 && cfg->series_dir[n - 1] == '/')
			n--;
		if ((size_t)snprintf(cfg->series_path, sizeof(cfg->series_path), "%.*s/host=%s", (int)n,
				     cfg->series_dir, host) >= sizeof(cfg->series_path))
			return usage_error("-o %s: too long a path", cfg->series_dir);
		cfg->series_dir = cfg->series_path;
	}
	cfg->series.applet = APPLET;
	cfg->series.verbose = o->verbose;
	return 0;
}

static int parse_args(void *run, const struct stk_invocation *inv)
{
	struct rec_config *cfg = &((struct rec_run *)run)->cfg;
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('t'),
		{ "event", required_argument, NULL, 'e' },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ "list-kinds", no_argument, NULL, OPT_LIST_KINDS },
		{ "min-latency", required_argument, NULL, OPT_MIN_LATENCY },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "max-files", required_argument, NULL, OPT_MAX_FILES },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "flush", required_argument, NULL, OPT_FLUSH },
		{ "layout", required_argument, NULL, OPT_LAYOUT },
		{ 0 },
	};
	char msg[512];
	uint64_t us;
	int c;

	stk_stack_opts_begin(&cfg->common, APPLET, inv, 't');
	stk_rec_request_init(&cfg->want);
	stk_res_request_init(&cfg->res);
	while ((c = stk_stack_getopt(&cfg->common, ":" STK_STACK_SHORTOPTS "t:e:", longopts, NULL, msg, sizeof(msg))) !=
	       -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
		case 'e':
			if (stk_rec_request_parse(&cfg->want, optarg, msg, sizeof(msg)))
				return usage_error("%s", msg);
			note_kinds(cfg, optarg);
			break;
		case OPT_MECHANISM:
			if (stk_each_item(optarg, mechanism_item, cfg))
				return -1;
			break;
		case OPT_MIN_LATENCY:
			if (stk_parse_u64(optarg, 0, UINT64_MAX / 1000, &us))
				return usage_error("--min-latency %s: expected a whole number of microseconds", optarg);
			cfg->res.min_latency_ns = us * 1000;
			break;
		case OPT_CGROUP: cfg->common.cgroup_path = optarg; break;
		case OPT_ROTATE:
		case OPT_MAX_FILES:
		case OPT_MAX_SIZE:
		case OPT_FLUSH:
		case OPT_LAYOUT:
			if (series_opt(cfg, c, optarg))
				return -1;
			break;
		case OPT_LIST_KINDS:
			for (int k = 0; k < STK_REC_KIND_PROBE; k++)
				printf("%s\n", stk_rec_kind((enum stk_rec_kind)k).name);
			return 1;
		case 'h': print_help(); return 1;
		}
	}
	if (check_args(cfg) || parse_probe(run) || take_series_dir(cfg))
		return -1;
	if (stk_stack_opts_finish(&cfg->common, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* The time one cpu sample stands for. */
static int64_t sample_ns(const struct rec_run *run)
{
	return (int64_t)(1000000000ULL / run->cfg.want.rate[STK_REC_KIND_CPU]);
}

/*
 * Each kind asked for, by its ref.type: its totals' value type (in kind
 * order), how its stacks are shown, its events; the report's title.
 */
static void describe_kinds(struct rec_run *run)
{
	for (int k = 0; k < STK_REC_KIND_COUNT; k++) {
		const struct stk_rec_kind_info i = stk_rec_kind((enum stk_rec_kind)k);

		run->kinds[k] = (struct stk_weight_kind){ .report_type = -1, .divisor = 1 };
		run->events[k] = (struct stk_event_desc){ 0 };
		if (!on(run, (enum stk_rec_kind)k))
			continue;
		run->kinds[k] = (struct stk_weight_kind){
			.report_type = (int)run->n_types, .divisor = i.event.divisor,
			/* a timed sample interrupts the code itself: no tracing frames to trim */
			.trim_tracing = i.source != STK_REC_CPU,
			.res_marks = i.source == STK_REC_RESOURCES, .res_kind = (uint16_t)i.res_kind,
		};
		run->events[k] = i.event;
		stk_rec_event_sampling(&run->events[k], (enum stk_rec_kind)k, run->cfg.want.rate[k]);
		if (i.source == STK_REC_CPU)
			run->events[k].sample_ns = sample_ns(run);
		if (i.source == STK_REC_PROBE) /* its event and value type are the pattern as given */
			run->events[k].event = run->events[k].value.type = run->cfg.want.probe;
		run->types[run->n_types++] = run->events[k].value;
	}
	snprintf(run->title, sizeof(run->title), "stk record -e %s", run->cfg.kinds_text);
}

/* A trial of a rung: its maps as small as they can be. */
static int size_for_trial(struct stk_bpf *s, void *ctx)
{
	(void)ctx;
	return stk_bpf_size_for_trial(s);
}

/* A probe's trial: libbpf's USDT map of call sites keeps its size (without BPF cookies each site takes an entry). */
static int size_probe_trial(struct stk_bpf *s, void *ctx)
{
	struct bpf_map *sites = bpf_object__find_map_by_name(s->obj, "__bpf_usdt_ip_to_spec_id");
	uint32_t keep = sites ? bpf_map__max_entries(sites) : 0;

	if (size_for_trial(s, ctx))
		return -1;
	return sites ? bpf_map__set_max_entries(sites, keep) : 0;
}

static int size_res_trial(struct stk_bpf *s, bool probe, void *ctx)
{
	(void)probe;
	return size_for_trial(s, ctx);
}

static const char *const offcpu_programs[STK_SCHED_MECH_COUNT] = STK_OFFCPU_PROGRAMS;
static const char *const profile_maps[] = STK_PROFILE_MAPS;
static const char *const offcpu_maps[] = STK_OFFCPU_MAPS;
static const char *const res_maps[] = STK_RES_MAPS;

/* offcpu's sched_switch ladder, climbed with trials. 0, or -1 after the error. */
static int choose_offcpu(struct rec_run *run, char *no_btf, size_t no_btf_len)
{
	struct stk_session *s = &run->session;
	char err[1024];

	run->sched_req = (struct stk_sched_request){
		.program_suffix = stk_unwind_program_suffix(s->unwind.rung),
		.free_program = STK_OFFCPU_FREE_PROGRAM,
		.maps = offcpu_maps,
		.extra_maps = stk_session_extra_maps(s),
		.btf_custom_path = stk_session_btf_path(s),
		.kernel_btf = s->btf.kernel_btf,
		.core_btf = stk_session_has_btf(s),
		.no_btf_why = no_btf,
		.forced = run->cfg.offcpu_mechanism,
		.before_load = size_for_trial,
	};
	for (int m = 0; m < STK_SCHED_MECH_COUNT; m++)
		run->sched_req.programs[m] = offcpu_programs[m];
	stk_btf_missing(&s->btf, no_btf, no_btf_len);
	if (!(run->offcpu = stk_sched_choose(&run->sched_req, err, sizeof(err)))) {
		stk_error(APPLET, "offcpu unavailable on this kernel: %s", err);
		return -1;
	}
	return 0;
}

/* The resources kinds' sources, each climbing its ladder with trials: all of them, or an error. */
static int choose_resources(struct rec_run *run, const char *release, char *tracefs_err, size_t tracefs_len)
{
	struct stk_session *s = &run->session;
	const char *how;
	char err[2048], kinds[128];

	run->res_req = (struct stk_res_attach_request){
		.want = &run->cfg.res,
		.program_suffix = stk_unwind_program_suffix(s->unwind.rung),
		.maps = res_maps,
		.extra_maps = stk_session_extra_maps(s),
		.btf_custom_path = stk_session_btf_path(s),
		.env = {
			.kernel_btf = s->btf.kernel_btf,
			.tracefs_error = stk_tracefs_ensure(&how, tracefs_err, tracefs_len) ? tracefs_err : NULL,
			.root = "",
			.any_btf = stk_session_has_btf(s),
			.release = release,
		},
		.cpus = run->cpus,
		.n_cpus = run->n_cpus,
		.before_load = size_res_trial,
		.ctx = run,
	};
	if (stk_res_choose(&run->res, &run->res_req, err, sizeof(err)) && !strstr(err, "no kind asked for")) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	/* a kind this kernel cannot give is an error here: a recording says every kind it was asked for */
	for (int src = 0; src < STK_RES_SRC_COUNT; src++) {
		if (!stk_res_request_wants(&run->cfg.res, (enum stk_res_source)src) || run->res.chosen[src])
			continue;
		stk_res_source_kinds(&run->cfg.res, (enum stk_res_source)src, false, kinds, sizeof(kinds));
		stk_error(APPLET, "%s unavailable on this kernel (%s)", kinds, run->res.tried[src]);
		return -1;
	}
	return 0;
}

/*
 * What the probe pattern names, and the mechanism a trial of stackcount's
 * ladder for its kind finds (each rung in an object of its own, released).
 * 0, or -1 after the error.
 */
static int choose_probe(struct rec_run *run)
{
	struct stk_session *s = &run->session;
	const struct stk_stack_opts *o = &run->cfg.common;
	const struct stk_probe_load load = {
		.maps = stk_probe_kind_maps(run->probe_targets.pattern.kind), .extra_maps = stk_session_extra_maps(s),
		.btf_custom_path = stk_session_btf_path(s), .before_load = size_probe_trial,
	};
	struct stk_probe_set trial = { 0 };
	char err[2048];

	/* one process: its probes only, as stackcount -p; its files are where LIB is looked for */
	run->probe_req = (struct stk_probe_request){
		.pid = o->n_pids == 1 ? (pid_t)o->pids[0] : 0,
		.kernel_btf = stk_session_has_btf(s),
		.fentry_max = STK_KFUNC_FENTRY_MAX_DEFAULT,
	};
	if (stk_probe_targets_find(&run->probe_targets, false, o->n_pids ? (pid_t)o->pids[0] : 0, err, sizeof(err)) ||
	    stk_probe_attach(&trial, &load, &run->probe_targets, &run->probe_req, err, sizeof(err))) {
		stk_error(APPLET, "%s: %s", run->cfg.want.probe, err);
		return -1;
	}
	run->probe_mechanism = trial.mechanism;
	snprintf(run->probes.tried, sizeof(run->probes.tried), "%s", trial.tried);
	stk_probe_set_release(&trial);
	return 0;
}

/* state's thread sampling: the task iterator where it loads (its program chosen by a trial), else /proc. */
static void choose_state(struct rec_run *run)
{
	struct stk_session *s = &run->session;
	char why[512];

	run->ts_req = (struct stk_tsource_request){
		.pids = run->cfg.common.pids, .n_pids = run->cfg.common.n_pids, .self_tgid = (uint32_t)getpid(),
		.kernel_stacks = !run->cfg.common.user_only, .all = true, .btf_custom_path = stk_session_btf_path(s),
		.kernel_btf = s->btf.kernel_btf, .sym = s->sym,
	};
	run->iter_program = NULL;
	if (run->cfg.state_source && strcmp(run->cfg.state_source, "proc") == 0)
		return;
	run->iter_program = stk_threads_iter_choose(&run->ts_req, why, sizeof(why));
	if (!run->iter_program)
		snprintf(run->state_tried, sizeof(run->state_tried), "task_iter: %s", why);
}

/* name appended to list at *n (of cap, NULL-terminated). */
static void add_name(const char **list, size_t cap, size_t *n, const char *name)
{
	if (name && *n + 1 < cap) {
		list[(*n)++] = name;
		list[*n] = NULL;
	}
}

static void add_names(const char **list, size_t cap, size_t *n, const char *const *names)
{
	for (; names && *names; names++)
		add_name(list, cap, n, *names);
}

/* The one object: every chosen source's programs and maps beside the session's. NULL after the error. */
static struct stk_bpf *open_object(struct rec_run *run, struct stk_sched_programs *sched,
				   struct stk_res_programs *res, char *cpu_program, size_t cpu_len, char *probe_program,
				   size_t probe_len)
{
	struct stk_session *s = &run->session;
	const char *programs[48], *maps[48];
	size_t np = 0, nm = 0;
	const char *suffix = stk_unwind_program_suffix(s->unwind.rung);
	char err[512];
	struct stk_bpf *skel;

	programs[0] = maps[0] = NULL;
	if (on(run, STK_REC_KIND_CPU)) {
		snprintf(cpu_program, cpu_len, STK_PROFILE_PROGRAM "%s", suffix ? suffix : "");
		add_name(programs, 48, &np, cpu_program);
		add_names(maps, 48, &nm, profile_maps);
	}
	if (run->offcpu) {
		stk_sched_programs(run->offcpu, &run->sched_req, sched);
		add_names(programs, 48, &np, sched->list);
		add_names(maps, 48, &nm, offcpu_maps);
	}
	if (any_resources(run)) {
		stk_res_programs(&run->res, suffix, res);
		add_names(programs, 48, &np, res->ptrs);
		add_names(maps, 48, &nm, res_maps);
	}
	if (run->iter_program) {
		add_name(programs, 48, &np, run->iter_program);
		add_names(maps, 48, &nm, stk_threads_iter_maps);
	}
	if (run->probe_mechanism) {
		snprintf(probe_program, probe_len, "%s%s", stk_probe_program(&run->probe_targets, run->probe_mechanism),
			 suffix ? suffix : "");
		add_name(programs, 48, &np, probe_program);
		add_names(maps, 48, &nm, stk_probe_kind_maps(run->probe_targets.pattern.kind));
	}
	const struct stk_bpf_selection sel = {
		.programs = programs, .maps = maps,
		.extra_maps = stk_session_extra_maps(s), .extra_programs = stk_session_extra_programs(s),
		.btf_custom_path = stk_session_btf_path(s),
	};
	if (!(skel = stk_bpf_open_selected(&sel, err, sizeof(err)))) {
		stk_error(APPLET, "%s", err);
		return NULL;
	}
	if (run->probe_mechanism &&
	    stk_probe_prepare_in(bpf_object__find_program_by_name(skel->obj, probe_program), &run->probe_targets,
				 run->probe_mechanism, err, sizeof(err))) {
		stk_error(APPLET, "%s: %s", run->cfg.want.probe, err);
		stk_bpf__destroy(skel);
		return NULL;
	}
	if (stk_session_size_maps(s, skel) || stk_bpf__load(skel)) {
		stk_error(APPLET, "loading the programs of every kind together failed: %s (run with -v for libbpf's log)",
			  strerror(errno));
		stk_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* A source's configuration headed by the session's, with its kind's ref.type. */
static struct stk_stack_config stack_config(const struct rec_run *run, enum stk_rec_kind k)
{
	struct stk_stack_config c = stk_session_stack_config(&run->session);

	c.type = (uint32_t)k;
	return c;
}

/* Every source's configuration into the loaded object. 0, or -1 (errno). */
static int write_configs(struct rec_run *run)
{
	struct stk_bpf *s = run->skel;
	const struct rec_config *cfg = &run->cfg;
	uint32_t zero = 0;

	if (on(run, STK_REC_KIND_CPU)) {
		const struct stk_profile_config pc = { .stack = stack_config(run, STK_REC_KIND_CPU), .hashed = 1 };

		if (bpf_map__update_elem(s->maps.profile_config, &zero, sizeof(zero), &pc, sizeof(pc), 0))
			return -1;
	}
	if (run->offcpu) {
		const struct stk_offcpu_config oc = { .stack = stack_config(run, STK_REC_KIND_OFFCPU),
						      .min_ns = OFFCPU_MIN_NS, .max_ns = UINT64_MAX,
						      .every = (uint32_t)cfg->want.rate[STK_REC_KIND_OFFCPU] };

		if (bpf_map__update_elem(s->maps.offcpu_config, &zero, sizeof(zero), &oc, sizeof(oc), 0))
			return -1;
	}
	if (any_resources(run)) {
		const struct stk_res_attachment *a = &run->res;
		struct stk_res_config rc = {
			.stack = stack_config(run, STK_REC_KIND_RES_FIRST),
			.fd_types = stk_session_has_btf(&run->session),
			.sockets_by_syscall = a->chosen[STK_RES_SRC_SOCKETS] &&
					      a->chosen[STK_RES_SRC_SOCKETS]->id == STK_RES_SYS_EXIT,
			.off = a->offsets,
			.min_latency_ns = cfg->res.min_latency_ns,
		};

		for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
			rc.every[k] = cfg->res.every[k];
			if (cfg->res.on[k])
				rc.enabled |= 1u << k;
		}
		if (bpf_map__update_elem(s->maps.res_config, &zero, sizeof(zero), &rc, sizeof(rc), 0))
			return -1;
	}
	if (run->probe_mechanism) {
		const struct stk_sc_config sc = { .stack = stack_config(run, STK_REC_KIND_PROBE) };

		if (bpf_map__update_elem(s->maps.sc_config, &zero, sizeof(zero), &sc, sizeof(sc), 0))
			return -1;
	}
	return 0;
}

/* Every source attached to the one object. 0, or -1 after the error. */
static int attach_all(struct rec_run *run, const char *cpu_program, const char *probe_program)
{
	char err[1024];
	size_t attached = 0;

	if (on(run, STK_REC_KIND_CPU)) {
		const struct stk_sampling sampling = { .value = run->cfg.want.rate[STK_REC_KIND_CPU] };

		run->cpu = stk_attach_cpu_sampling(bpf_object__find_program_by_name(run->skel->obj, cpu_program),
						   run->cpus, run->n_cpus, &sampling, &attached, err, sizeof(err));
		if (!run->cpu) {
			stk_error(APPLET, "cpu: %s", err);
			return -1;
		}
	}
	if (run->offcpu && stk_sched_attach_in(run->offcpu, &run->sched_req, run->skel, err, sizeof(err))) {
		stk_error(APPLET, "offcpu: %s", err);
		return -1;
	}
	if (any_resources(run) && stk_res_attach_in(&run->res, &run->res_req, run->skel, err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (run->probe_mechanism &&
	    stk_probe_attach_in(&run->probes, run->skel, run->probe_mechanism, probe_program, &run->probe_targets,
				&run->probe_req, err, sizeof(err))) {
		stk_error(APPLET, "%s: %s", run->cfg.want.probe, err);
		return -1;
	}
	if (on(run, STK_REC_KIND_STATE)) {
		const struct stk_thread_select_opts so = { .cgroup = run->cfg.common.cgroup_path, .all = true,
							   .kernel_stacks = !run->cfg.common.user_only };

		run->threads = stk_tsource_open_in(&run->ts_req, run->skel, run->iter_program, err, sizeof(err));
		if (!run->threads || !(run->select = stk_thread_selector_new(&so, run->session.sym))) {
			stk_error(APPLET, "state: %s", run->threads ? "out of memory" : err);
			return -1;
		}
	}
	return 0;
}

/* -v: each source's mechanism, and what it passed over. */
static void say_mechanisms(const struct rec_run *run)
{
	const struct rec_config *cfg = &run->cfg;
	const struct stk_res_attachment *a = &run->res;
	char kinds[128], passed[1024], what[256];

	if (!cfg->common.verbose)
		return;
	if (run->cpu)
		fprintf(stderr, "%s: cpu: mechanism perf_event (software cpu-clock, Hz %llu) on %zu CPUs\n", APPLET,
			(unsigned long long)cfg->want.rate[STK_REC_KIND_CPU], run->n_cpus);
	if (run->offcpu) {
		enum stk_sched_mech m = stk_sched_mechanism(run->offcpu);

		snprintf(what, sizeof(what), "%s%s%s", stk_rung_by_id(STK_ATTACH_SCHED_SWITCH, (int)m)->name,
			 m == STK_SCHED_KPROBE ? " " : "", m == STK_SCHED_KPROBE ? stk_sched_target(run->offcpu) : "");
		fprintf(stderr, "%s: offcpu: mechanism %s%s\n", APPLET, what,
			stk_climb_passed_over(stk_sched_tried(run->offcpu), passed, sizeof(passed)));
	}
	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (!a->chosen[s])
			continue;
		stk_res_source_kinds(&cfg->res, (enum stk_res_source)s, false, kinds, sizeof(kinds));
		fprintf(stderr, "%s: %s: mechanism %s%s\n", APPLET, kinds, a->chosen[s]->name,
			stk_climb_passed_over(a->tried[s], passed, sizeof(passed)));
	}
	if (on(run, STK_REC_KIND_STATE))
		fprintf(stderr, "%s: state: source %s%s\n", APPLET, run->iter_program ? "task_iter" : "proc",
			stk_climb_passed_over(run->state_tried, passed, sizeof(passed)));
	if (run->probe_mechanism)
		fprintf(stderr, "%s: %s: %zu %s, mechanism %s%s\n", APPLET, cfg->want.probe,
			stk_probe_targets_count(&run->probe_targets), stk_probe_kind_noun(run->probe_targets.pattern.kind),
			run->probe_mechanism, stk_climb_passed_over(run->probes.tried, passed, sizeof(passed)));
	fprintf(stderr, "%s: BTF %s; unwind %s\n", APPLET, stk_btf_kind_name(run->session.btf.kind),
		stk_unwind_rung_name(run->session.unwind.rung));
}

/* One pass over the threads: a state row for every one kept. */
static int sample_states(void *arg)
{
	struct rec_run *run = arg;
	struct stk_thread_batch *b = &run->batch;

	stk_thread_batch_reset(b);
	if (stk_tsource_sample(run->threads, b)) {
		stk_error(APPLET, "a state pass failed: %s", strerror(errno));
		return -1;
	}
	stk_thread_select(run->select, b);
	for (size_t i = 0; i < b->n; i++) {
		struct stk_ev_row row;

		if (!b->threads[i].keep)
			continue;
		stk_ev_thread_row(&b->threads[i], b->wall_ns, &row);
		stk_session_event_row(&run->session, STK_REC_KIND_STATE, &row);
	}
	return 0;
}

static void print_header(void *arg)
{
	const struct rec_run *run = arg;
	const struct rec_config *cfg = &run->cfg;

	printf("Recording %s of %s by %s stack", cfg->kinds_text, stk_stack_opts_whose(&cfg->common),
	       stk_stack_opts_which(&cfg->common));
	stk_stack_opts_print_until(&cfg->common);
}

/* Stop every source before the totals are read, so they are one snapshot. */
static void detach(void *arg)
{
	struct rec_run *run = arg;

	stk_perf_attachment_destroy(run->cpu);
	run->cpu = NULL;
	stk_sched_detach(run->offcpu);
	stk_res_detach(&run->res);
	stk_probe_set_detach(&run->probes);
	stk_tsource_free(run->threads);
	run->threads = NULL;
}

/* The report of the capture (no stacks: every output is made from the recording), as its footers describe it. */
static struct stk_report make_report(const struct rec_run *run)
{
	const bool cpu = on(run, STK_REC_KIND_CPU);

	return (struct stk_report){
		.value_type = run->types[0].type,
		.value_unit = run->types[0].unit,
		.types = run->n_types > 1 ? run->types : NULL,
		.n_types = run->n_types > 1 ? run->n_types : 0,
		.period_type = cpu ? "cpu" : NULL,
		.period_unit = cpu ? "nanoseconds" : NULL,
		.period = cpu ? sample_ns(run) : 0,
		.title = run->title,
	};
}

/* Every output is made from the recording: here the report's fields and options go to its footer. */
static int print_results(void *arg)
{
	struct rec_run *run = arg;
	const struct stk_stack_list none = { 0 };
	const struct stk_report report = make_report(run);
	const struct stk_output_opts opts = { .show_tid = run->cfg.common.n_tids > 0 };

	stk_session_begin_results(&run->session);
	return stk_session_print(&run->session, &none, &report, &opts);
}

static int setup(void *arg)
{
	struct rec_run *run = arg;
	struct rec_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	char release[256] = "", tracefs_err[256], no_btf[512], cpu_program[64], probe_program[64];
	struct stk_sched_programs sched;
	struct stk_res_programs res;

	describe_kinds(run);
	const struct stk_stack_applet record = {
		.name = APPLET, .counts = true, .unit = "events", .hashes = true, .records = true,
		/* a kernel function's stacks start at its own frame, as stackcount shows them */
		.rules = { .trim_to = on(run, STK_REC_KIND_PROBE) &&
					      run->probe_targets.pattern.kind == STK_PROBE_KERNEL_FUNCTION
				      ? &run->probe_targets.names : NULL,
			   .kinds = run->kinds, .n_kinds = STK_REC_KIND_COUNT },
		.events = { .per_thread = cfg->common.n_tids > 0, .kinds = run->events, .n_kinds = STK_REC_KIND_COUNT },
		.header = print_header, .interval = on(run, STK_REC_KIND_STATE) ? sample_states : NULL, .detach = detach,
		.results = print_results, .series_dir = cfg->series_dir, .series = &cfg->series,
	};

	/* a series' SIGHUP held from now: one sent while the capture starts rotates once it runs, never kills it */
	if (cfg->series_dir) {
		sigset_t hup;

		sigemptyset(&hup);
		sigaddset(&hup, SIGHUP);
		sigprocmask(SIG_BLOCK, &hup, NULL);
	}
	if (stk_session_open(session, &record, &cfg->common, cfg->common.pids, cfg->common.n_pids) ||
	    stk_session_plan_unwind(session, &cfg->common, true, STK_UNWIND_CFI))
		return -1;
	if (stk_cpus_online(&run->cpus, &run->n_cpus)) {
		stk_error(APPLET, "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		return -1;
	}
	stk_kernel_release(release, sizeof(release));
	if ((on(run, STK_REC_KIND_OFFCPU) && choose_offcpu(run, no_btf, sizeof(no_btf))) ||
	    (any_resources(run) && choose_resources(run, release, tracefs_err, sizeof(tracefs_err))) ||
	    (on(run, STK_REC_KIND_PROBE) && choose_probe(run)))
		return -1;
	if (on(run, STK_REC_KIND_STATE))
		choose_state(run);
	if (!(run->skel = open_object(run, &sched, &res, cpu_program, sizeof(cpu_program), probe_program,
				      sizeof(probe_program))))
		return -1;
	if (stk_session_connect(session, run->skel))
		return -1;
	if (write_configs(run)) {
		stk_error(APPLET, "writing the configuration into BPF maps failed: %s", strerror(errno));
		return -1;
	}
	if (attach_all(run, cpu_program, probe_program))
		return -1;
	say_mechanisms(run);
	/* a series describes each file as it goes: the capture's description before the first */
	const struct stk_report report = make_report(run);
	const struct stk_output_opts opts = { .show_tid = cfg->common.n_tids > 0 };
	stk_session_describe(session, &report, &opts);
	long state_ms = on(run, STK_REC_KIND_STATE) ? (long)(1000 / cfg->want.rate[STK_REC_KIND_STATE]) : 0;

	if (stk_session_start(session, on(run, STK_REC_KIND_STATE) && state_ms < 1 ? 1 : state_ms))
		return -1;
	/* the threads as they are at the start, then every period */
	return on(run, STK_REC_KIND_STATE) ? sample_states(run) : 0;
}

static int capture(void *run)
{
	return stk_session_capture(&((struct rec_run *)run)->session, run);
}

static void teardown(void *arg)
{
	struct rec_run *run = arg;

	stk_perf_attachment_destroy(run->cpu);
	stk_sched_attachment_free(run->offcpu);
	stk_res_attachment_release(&run->res);
	stk_probe_set_release(&run->probes);
	stk_probe_targets_free(&run->probe_targets);
	stk_tsource_free(run->threads);
	stk_thread_selector_free(run->select);
	stk_thread_batch_free(&run->batch);
	stk_bpf__destroy(run->skel);
	stk_session_close(&run->session);
	stk_stack_opts_free(&run->cfg.common);
	free(run->cpus);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = capture, .teardown = teardown,
};

STK_APPLET(record, .name = "record", .summary = "everything at once: every kind of event in one capture, one log",
	   .steps = &steps, .run_size = sizeof(struct rec_run), .bare_link = false, .rank = 45);
