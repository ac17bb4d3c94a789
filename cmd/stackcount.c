/*
 * stk stackcount: how often each stack reaches a kernel function,
 * tracepoint, user function or USDT probe. Patterns and options follow
 * bcc's stackcount (core/probe/probe_pattern.h); the table of probe kinds
 * (core/attach/probe_kinds.c, stk record's too) finds what a pattern names
 * and climbs its ladder to attach, and the counts go through the session
 * (core/session/session.h) like the other stack applets'.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/stackcount_types.h"
#include "core/attach/attach_kfunc.h"
#include "core/attach/probe_kinds.h"
#include "core/base/clock.h"
#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/ladder/climb.h"
#include "core/ladder/ladder.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/probe/probe_pattern.h"
#include "core/session/session.h"

#define APPLET "stackcount"
#define DEFAULT_MAX_PROBES 1000
/* Names listed in messages before "(+N more)". */
#define LIST_SHOWN 8
#define MECHANISM_ENV "STK_STACKCOUNT_MECHANISM"

struct sc_config {
	struct stk_stack_opts common; /* -p -U -K -f -o ... shared with the other stack applets */
	const char *pattern_text;
	struct stk_probe_pattern pattern;
	uint32_t pid; /* -p: one process (0: all) */
	int cpu;      /* -1: all */
	long interval_ms;
	bool timestamps, regex, offsets, per_process, plan;
	uint64_t max_probes, fentry_max;
	const char *mechanism; /* --mechanism or $STK_STACKCOUNT_MECHANISM, or NULL */
};

static void print_help(void)
{
	printf("usage: stk stackcount [options] PATTERN\n\n"
	       "Counts the stacks that reach a probe. PATTERN:\n"
	       "  FUNC, p:FUNC            kernel function\n"
	       "  t:CATEGORY:EVENT        tracepoint\n"
	       "  LIB:FUNC, p:LIB:FUNC    user function in a library or executable (c = the C library; a path works)\n"
	       "  u:LIB:PROBE             USDT probe (u:LIB:PROVIDER:PROBE names the provider)\n"
	       "Names may use '*' wildcards, or be regular expressions with -r.\n\n"
	       "  -p, --pid PID               only this process (its libraries are searched for LIB)\n"
	       "  -c, --cpu CPU               only events on this CPU\n"
	       "  -i, --interval SECS         print and reset the counts every SECS seconds\n"
	       "  -T, --timestamp             print a time with each output\n"
	       "  -D, --duration SECS         trace this long (default: until Ctrl-C or SIGTERM)\n"
	       "  -r, --regexp                names are POSIX extended regular expressions (anchored at the start)\n"
	       "  -s, --offset                show symbol offsets\n"
	       "  -P, --perpid                count stacks per process\n"
	       "  -K, --kernel-stacks-only    only kernel stacks\n"
	       "  -U, --user-stacks-only      only user stacks\n"
	       "  -v, --verbose               address and module for every frame; the mechanism chosen\n"
	       "  -d, --debug                 print the attach plan (pattern, functions, mechanism), then run\n"
	       "      --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n"
	       "      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       STK_UNWIND_HELP
	       "      --max-probes N          refuse patterns matching more than N probes (default %d)\n"
	       "      --fentry-max N          kernel functions up to which fentry is tried before kprobe.multi\n"
	       "                              (default %d)\n",
	       STK_STACK_STORAGE_DEFAULT, DEFAULT_MAX_PROBES, STK_KFUNC_FENTRY_MAX_DEFAULT);
	stk_output_help(stdout, STK_OFFER_ALL, STK_FORMAT_TEXT);
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       STK_EVENT_HELP
	       "      --mechanism M           kernel functions: fentry, kprobe.multi, kprobe or kprobe_legacy;\n"
	       "                              tracepoints: raw_tp or tracepoint;\n"
	       "                              user functions: uprobe or uprobe.multi (also $" MECHANISM_ENV ")\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "  -h, --help                  this help\n");
}

enum long_only {
	OPT_MAX_PROBES = STK_OPT_APPLET,
	OPT_FENTRY_MAX,
	OPT_DELIMITED,
	OPT_MECHANISM,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* Everything the capture owns, released in one place. */
struct sc_run {
	struct sc_config cfg;
	struct stk_probe_targets targets; /* what the pattern names */
	struct stk_probe_set probes;
	struct stk_session session;
};

static int size_maps(struct stk_bpf *s, void *ctx)
{
	return stk_session_size_maps(&((struct sc_run *)ctx)->session, s);
}

/* After load (each mechanism tried brings its skeleton): the session's part, then the configuration. */
static int write_config(struct stk_bpf *s, void *ctx)
{
	struct sc_run *run = ctx;
	const struct sc_config *cfg = &run->cfg;
	const struct stk_sc_config bc = {
		.stack = stk_session_stack_config(&run->session),
		.filter_cpu = cfg->cpu >= 0,
		.cpu = cfg->cpu >= 0 ? (uint32_t)cfg->cpu : 0,
	};
	uint32_t zero = 0;

	if (stk_session_connect(&run->session, s))
		return -1;
	return bpf_map__update_elem(s->maps.sc_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

/* Fills run->targets from the pattern. 0, or -1 after a one-line error. */
static int find_targets(struct sc_run *run)
{
	struct sc_config *cfg = &run->cfg;
	size_t n;
	char err[1024];

	run->targets.pattern = cfg->pattern;
	if (stk_probe_targets_find(&run->targets, cfg->regex, (pid_t)cfg->pid, err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if ((n = stk_probe_targets_count(&run->targets)) > cfg->max_probes) {
		char msg[256];
		snprintf(msg, sizeof(msg), "'%%s' matches %zu %ss, more than the limit of %llu (raise it with "
			 "--max-probes N)", n, stk_probe_kind_name(cfg->pattern.kind),
			 (unsigned long long)cfg->max_probes);
		return usage_error(msg, cfg->pattern_text);
	}
	return 0;
}

static int print_results(struct sc_run *run, bool reset)
{
	const struct sc_config *cfg = &run->cfg;
	struct stk_stack_list c = { 0 };
	int ret;
	char title[600];

	if (stk_session_collect(&run->session, &c, reset)) {
		stk_stack_list_free(&c);
		return -1;
	}
	if (cfg->timestamps) {
		time_t now = time(NULL);
		struct tm tm;
		char ts[32];
		strftime(ts, sizeof(ts), "%H:%M:%S", localtime_r(&now, &tm));
		printf("%-8s\n", ts);
		fflush(stdout);
	}
	snprintf(title, sizeof(title), "stk stackcount %s", cfg->pattern_text);
	const struct stk_report report = { .value_type = "count", .value_unit = "count", .title = title };
	const struct stk_output_opts opts = { .symbol_offsets = cfg->offsets, .no_task = !cfg->per_process };
	ret = stk_session_print(&run->session, &c, &report, &opts);
	stk_stack_list_free(&c);
	return ret;
}

static void print_header(void *arg)
{
	const struct sc_run *run = arg;
	printf("Tracing %zu %s for \"%s\"... Hit Ctrl-C to end.\n", stk_probe_targets_count(&run->targets),
	       stk_probe_kind_noun(run->cfg.pattern.kind), run->cfg.pattern_text);
	fflush(stdout);
}

/* -d: pattern -> matched names -> mechanism, on stderr so stdout stays data. */
static void print_plan(const struct sc_run *run)
{
	const struct sc_config *cfg = &run->cfg;
	const struct stk_probe_pattern *p = &cfg->pattern;
	const struct stk_probe_targets *t = &run->targets;
	size_t n = stk_probe_targets_count(t);

	fprintf(stderr, "stackcount: plan for \"%s\": %s %s", cfg->pattern_text, stk_probe_kind_name(p->kind),
		t->match.kind == STK_MATCH_REGEX ? "regex" : t->match.kind == STK_MATCH_GLOB ? "glob" : "name");
	if (p->lib[0])
		fprintf(stderr, " in %s", t->file.display);
	fprintf(stderr, "\nstackcount:   matched %zu:", n);
	for (size_t i = 0; i < n; i++) {
		if (p->kind == STK_PROBE_USER_FUNCTION)
			fprintf(stderr, " %s@0x%llx", stk_probe_target_name(t, i), (unsigned long long)t->funcs.funcs[i].offset);
		else
			fprintf(stderr, " %s", stk_probe_target_name(t, i));
	}
	fputc('\n', stderr);
	if (t->untraceable.n) {
		fprintf(stderr, "stackcount:   cannot be traced (%zu):", t->untraceable.n);
		for (size_t i = 0; i < t->untraceable.n; i++)
			fprintf(stderr, " %s", t->untraceable.names[i]);
		fputc('\n', stderr);
	}
	char passed[1024];

	fprintf(stderr, "stackcount:   mechanism: %s%s\n", run->probes.mechanism,
		stk_climb_passed_over(run->probes.tried, passed, sizeof(passed)));
}

static int attach(struct sc_run *run)
{
	const struct stk_probe_load load = {
		.maps = stk_probe_kind_maps(run->cfg.pattern.kind),
		.extra_maps = stk_session_extra_maps(&run->session),
		.extra_programs = stk_session_extra_programs(&run->session),
		.program_suffix = stk_unwind_program_suffix(run->session.unwind.rung),
		.btf_custom_path = stk_session_btf_path(&run->session),
		.before_load = size_maps,
		.after_load = write_config,
		.ctx = run,
		.progress = true,
	};
	const struct stk_probe_request req = {
		.pid = (pid_t)run->cfg.pid,
		.forced = run->cfg.mechanism,
		.kernel_btf = stk_session_has_btf(&run->session),
		.fentry_max = run->cfg.fentry_max,
	};
	char err[2048];

	if (!stk_probe_attach(&run->probes, &load, &run->targets, &req, err, sizeof(err)))
		return 0;
	stk_error(APPLET, "%s", err);
	return -1;
}

/* -i: print and reset the counts while still attached. */
static int interval(void *run)
{
	return print_results(run, true);
}

static void detach(void *run)
{
	stk_probe_set_detach(&((struct sc_run *)run)->probes);
}

static int results(void *run)
{
	return print_results(run, false);
}

static int setup(void *arg)
{
	struct sc_run *run = arg;
	struct sc_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	/* kernel functions' stacks start at the probed function's own frame */
	static const struct stk_weight_kind counted = { .report_type = 0, .divisor = 1, .trim_tracing = true };
	const struct stk_event_desc hit = { .event = cfg->pattern_text, .unit = "count", .divisor = 1 };
	const struct stk_stack_applet stackcount = {
		.name = APPLET, .counts = true, .unit = "events", .hashes = true,
		.rules = { .trim_to = cfg->pattern.kind == STK_PROBE_KERNEL_FUNCTION ? &run->targets.names : NULL,
			   .kinds = &counted, .n_kinds = 1 },
		.events = { .kinds = &hit, .n_kinds = 1 },
		.header = print_header, .interval = interval, .detach = detach, .results = results,
	};
	char what[2048], passed[1024];

	if (stk_session_open(session, &stackcount, &cfg->common, &cfg->pid, cfg->pid ? 1 : 0))
		return -1;
	/* Before any thread exists: tracefs may need a private mount namespace. */
	if (find_targets(run))
		return -1;
	if (run->targets.untraceable.n && !cfg->plan) {
		char names[1024];
		stk_probe_list_names(names, sizeof(names), run->targets.untraceable.names, run->targets.untraceable.n,
				     LIST_SHOWN);
		fprintf(stderr, "stackcount: %zu matching functions cannot be traced (notrace or blacklisted): %s\n",
			run->targets.untraceable.n, names);
	}
	if (stk_session_plan_unwind(session, &cfg->common, true, STK_UNWIND_CFI))
		return -1;
	int64_t attach_start = stk_now_ns(CLOCK_MONOTONIC);
	if (attach(run))
		return -1;
	double attach_ms = (double)(stk_now_ns(CLOCK_MONOTONIC) - attach_start) / 1e6;
	if (cfg->plan)
		print_plan(run);
	snprintf(what, sizeof(what), "%zu %s attached with %s%s in %.1f ms (load included)", run->probes.n_targets,
		 stk_probe_kind_noun(cfg->pattern.kind), run->probes.mechanism, stk_climb_passed_over(run->probes.tried, passed, sizeof(passed)),
		 attach_ms);
	stk_session_say_mechanism(session, what, NULL);
	return stk_session_start(session, cfg->interval_ms);
}

static int capture(void *run)
{
	return stk_session_capture(&((struct sc_run *)run)->session, run);
}

static int check_mechanism(const struct sc_config *cfg)
{
	enum stk_attach_class cls = stk_probe_kind_class(cfg->pattern.kind);
	char names[128];

	if (!cfg->mechanism || stk_rung_by_name(cls, cfg->mechanism))
		return 0;
	stk_ladder_names(cls, names, sizeof(names));
	return usage_error("--mechanism %s: %ss use %s", cfg->mechanism, stk_ladder_for(cls)->name, names);
}

static int check_args(struct sc_config *cfg)
{
	char msg[512];

	/* the pattern is the one operand: no trailing duration (that is -D) */
	if (stk_stack_opts_finish(&cfg->common, cfg->common.argc, msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->common.n_pids > 1)
		return usage_error("-p: stackcount traces one process (or all)%s", "");
	cfg->pid = cfg->common.n_pids ? cfg->common.pids[0] : 0;
	if (stk_probe_pattern_parse(cfg->pattern_text, &cfg->pattern, msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (check_mechanism(cfg))
		return -1;
	if (cfg->cpu >= 0 && cfg->cpu >= libbpf_num_possible_cpus()) {
		snprintf(msg, sizeof(msg), "-c %d: this machine has CPUs 0 to %d", cfg->cpu,
			 libbpf_num_possible_cpus() - 1);
		return usage_error("%s", msg);
	}
	return 0;
}

static int parse_args(void *run, const struct stk_invocation *inv)
{
	struct sc_config *cfg = &((struct sc_run *)run)->cfg;
	/* The shared table minus "tid" (no thread option) and "delimited" (here -d is the plan, --delimited its own). */
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		STK_STACK_COMMON_LONGOPTS,
		{ "cpu", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "duration", required_argument, NULL, 'D' },
		{ "regexp", no_argument, NULL, 'r' },
		{ "offset", no_argument, NULL, 's' },
		{ "perpid", no_argument, NULL, 'P' },
		{ "debug", no_argument, NULL, 'd' },
		{ "delimited", no_argument, NULL, OPT_DELIMITED },
		{ "max-probes", required_argument, NULL, OPT_MAX_PROBES },
		{ "fentry-max", required_argument, NULL, OPT_FENTRY_MAX },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ 0 },
	};
	char msg[512];
	uint64_t v;
	int c;

	/* no thread option: this letter never comes back from getopt */
	stk_stack_opts_begin(&cfg->common, APPLET, inv, '\x01');
	cfg->max_probes = DEFAULT_MAX_PROBES;
	cfg->fentry_max = STK_KFUNC_FENTRY_MAX_DEFAULT;
	cfg->cpu = -1;
	cfg->mechanism = getenv(MECHANISM_ENV);
	if (cfg->mechanism && !*cfg->mechanism)
		cfg->mechanism = NULL;

	/* -d is the attach plan here, not the shared "delimited" */
	while ((c = stk_stack_getopt(&cfg->common, ":p:UKfo:vhc:i:TD:rsPd", longopts, "d", msg, sizeof(msg))) != -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
		case 'c':
			if (stk_parse_u64(optarg, 0, 4095, &v))
				return usage_error("-c %s: expected a CPU number", optarg);
			cfg->cpu = (int)v;
			break;
		case 'i':
			if (stk_parse_seconds(optarg, &cfg->interval_ms))
				return usage_error("-i %s: expected a positive number of seconds", optarg);
			break;
		case 'T': cfg->timestamps = true; break;
		case 'D':
			if (stk_parse_seconds(optarg, &cfg->common.duration_ms))
				return usage_error("-D %s: expected a positive number of seconds", optarg);
			break;
		case 'r': cfg->regex = true; break;
		case 's': cfg->offsets = true; break;
		case 'P': cfg->per_process = true; break;
		case 'd': cfg->plan = true; break;
		case OPT_DELIMITED: cfg->common.delimiter = true; break;
		case OPT_MAX_PROBES:
			if (stk_parse_u64(optarg, 1, 1000000, &cfg->max_probes))
				return usage_error("--max-probes %s: expected 1 to 1000000", optarg);
			break;
		case OPT_FENTRY_MAX:
			if (stk_parse_u64(optarg, 0, 1000000, &cfg->fentry_max))
				return usage_error("--fentry-max %s: expected 0 to 1000000", optarg);
			break;
		case OPT_MECHANISM: cfg->mechanism = optarg; break;
		case 'h': print_help(); return 1;
		}
	}
	if (optind >= inv->argc)
		return usage_error("missing PATTERN (see 'stk stackcount --help')%s", "");
	cfg->pattern_text = inv->argv[optind];
	if (optind + 1 < inv->argc)
		return usage_error("unexpected argument '%s' (one PATTERN per run)", inv->argv[optind + 1]);
	return check_args(cfg);
}

static void teardown(void *arg)
{
	struct sc_run *run = arg;
	stk_probe_set_release(&run->probes);
	stk_session_close(&run->session);
	stk_probe_targets_free(&run->targets);
	stk_stack_opts_free(&run->cfg.common);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = capture, .teardown = teardown,
};

STK_APPLET(stackcount, .name = "stackcount", .summary = "which code paths reach this function, tracepoint or USDT probe?",
	   .steps = &steps, .run_size = sizeof(struct sc_run), .bare_link = true, .rank = 20);
