/*
 * stk resources: which code paths grow memory, do disk and network I/O, and
 * how much. Each kind of -e weighs the stacks of the threads that caused
 * it (core/resources/kinds.c): bytes of resident memory growth, page
 * faults, block I/O bytes and time by the stack that made the request,
 * bytes through read/write system calls and through TCP/UDP sockets. Each
 * source of events climbs its own ladder of mechanisms
 * (core/attach/attach_resources.c); a kind this kernel cannot give is said
 * in one line and the others run. The report has a value type per kind.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/resources_types.h"
#include "core/attach/attach_resources.h"
#include "core/base/cpus.h"
#include "core/base/dispatch.h"
#include "core/base/kernel_release.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/tracefs.h"
#include "core/bpf/bpf_object.h"
#include "core/bpf/percpu_maps.h"
#include "core/ladder/climb.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/record/kinds.h"
#include "core/resources/kinds.h"
#include "core/session/session.h"

#define APPLET "resources"

struct res_config {
	struct stk_stack_opts common; /* -p -t -U -K -d -f -o ... shared with the other stack applets */
	struct stk_res_request want;  /* -e, --mechanism */
};

static void print_kinds(void)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		const struct stk_res_kind_info *i = stk_res_kind((enum stk_res_kind)k);

		printf("        %-12s %s (%s)\n", i->name, i->what, i->unit);
	}
}

static void print_help(void)
{
	printf("usage: stk resources -e KIND[:N][,KIND[:N]...] [options] [duration]\n\n"
	       "Weighs stacks by what their threads cost: memory grown, faults, disk and network I/O.\n"
	       "duration: seconds to trace (default: until Ctrl-C or SIGTERM).\n\n"
	       "  -e, --event KIND[:N],...    what to weigh stacks by (may be repeated); :N takes every Nth\n"
	       "                              event of the kind and multiplies its weight by N\n");
	print_kinds();
	printf("  -p, --pid PID[,PID...]      only these processes (host PIDs)\n"
	       "  -t, --tid TID[,TID...]      only these threads; stacks are kept per thread\n"
	       STK_STACK_CHOICES_HELP,
	       STK_STACK_STORAGE_DEFAULT);
	stk_output_help(stdout, STK_OFFER_ALL, STK_FORMAT_TEXT);
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       STK_EVENT_HELP
	       STK_RES_MIN_LATENCY_HELP
	       "      --mechanism KIND=M,...  the mechanism of a kind's events instead of the first that works\n"
	       "                              (rss: tp_btf, raw_tp, tracepoint; faults: perf_event, tracepoint;\n"
	       "                              block, block-time, iorq, read, write, syscall: raw_tp, tracepoint;\n"
	       "                              send, recv: raw_tp, tracepoint, sys_exit)\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "      --list-kinds            print the kinds, one a line, and exit\n"
	       "  -v, --verbose               address and module for every frame; mechanisms and losses\n"
	       "  -h, --help                  this help\n");
}

enum res_long_opt {
	OPT_MECHANISM = STK_OPT_APPLET,
	OPT_LIST_KINDS,
	OPT_MIN_LATENCY,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* Everything the capture owns, released in one place. */
struct res_run {
	struct res_config cfg;
	struct stk_session session;
	struct stk_res_attachment attach;
	int *cpus;
	size_t n_cpus;
	/* the report's value types: the kinds asked for that this kernel gives, in kind order */
	struct stk_value_type types[STK_RES_KIND_COUNT];
	struct stk_weight_kind kinds[STK_RES_KIND_COUNT]; /* kind -> its value type (-1: not reported) and divisor */
	struct stk_event_desc events[STK_RES_KIND_COUNT]; /* kind -> its events (no name: not recorded) */
	size_t n_types;
	char title[512];
};

static int parse_args(void *run, const struct stk_invocation *inv)
{
	struct res_config *cfg = &((struct res_run *)run)->cfg;
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('t'),
		{ "event", required_argument, NULL, 'e' },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ "list-kinds", no_argument, NULL, OPT_LIST_KINDS },
		{ "min-latency", required_argument, NULL, OPT_MIN_LATENCY },
		{ 0 },
	};
	uint64_t us;
	char msg[512];
	int c;

	stk_stack_opts_begin(&cfg->common, APPLET, inv, 't');
	stk_res_request_init(&cfg->want);
	while ((c = stk_stack_getopt(&cfg->common, ":" STK_STACK_SHORTOPTS "t:e:", longopts, NULL, msg, sizeof(msg))) !=
	       -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
		case 'e':
			if (stk_res_request_parse_kinds(&cfg->want, optarg, msg, sizeof(msg)))
				return usage_error("%s", msg);
			break;
		case OPT_MECHANISM:
			if (stk_res_request_parse_mechanisms(&cfg->want, optarg, msg, sizeof(msg)))
				return usage_error("%s", msg);
			break;
		case OPT_MIN_LATENCY:
			if (stk_parse_u64(optarg, 0, UINT64_MAX / 1000, &us))
				return usage_error("--min-latency %s: expected a whole number of microseconds", optarg);
			cfg->want.min_latency_ns = us * 1000;
			break;
		case OPT_LIST_KINDS:
			for (int k = 0; k < STK_RES_KIND_COUNT; k++)
				printf("%s\n", stk_res_kind((enum stk_res_kind)k)->name);
			return 1;
		case 'h': print_help(); return 1;
		}
	}
	if (stk_res_request_check(&cfg->want, msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->common.n_pids && cfg->common.n_tids)
		return usage_error("-p and -t are mutually exclusive%s", "");
	if (stk_stack_opts_finish(&cfg->common, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* Its own maps (the stack maps are the session's). */
static const char *const res_maps[] = STK_RES_MAPS;

static int size_maps(struct stk_bpf *s, bool probe, void *ctx)
{
	struct res_run *run = ctx;

	return probe ? stk_bpf_size_for_trial(s) : stk_session_size_maps(&run->session, s);
}

/* Whether a source's kinds are counted by the one sys_exit program. */
static bool by_sys_exit(const struct stk_res_attachment *a, enum stk_res_source s)
{
	const struct stk_rung *r = a->chosen[s];

	return r && ((s == STK_RES_SRC_FILES) || r->id == STK_RES_SYS_EXIT);
}

static void choose_types(struct res_run *run, const struct stk_res_attachment *a);

static int write_config(struct stk_bpf *s, const struct stk_res_attachment *a, void *ctx)
{
	struct res_run *run = ctx;
	const struct res_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	struct stk_res_config bc = {
		.stack = stk_session_stack_config(session),
		.fd_types = stk_session_has_btf(session),
		.sockets_by_syscall = a->chosen[STK_RES_SRC_SOCKETS] &&
				      a->chosen[STK_RES_SRC_SOCKETS]->id == STK_RES_SYS_EXIT,
		.off = a->offsets,
		.min_latency_ns = cfg->want.min_latency_ns,
	};
	uint32_t zero = 0;

	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		bc.every[k] = cfg->want.every[k];
		if (cfg->want.on[k] && a->chosen[stk_res_kind((enum stk_res_kind)k)->source])
			bc.enabled |= 1u << k;
	}
	choose_types(run, a);
	if (stk_session_connect(session, s))
		return -1;
	return bpf_map__update_elem(s->maps.res_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

static int print_results(void *arg)
{
	struct res_run *run = arg;
	const struct res_config *cfg = &run->cfg;
	const struct stk_report report = {
		.value_type = run->types[0].type,
		.value_unit = run->types[0].unit,
		.types = run->types,
		.n_types = run->n_types,
		.title = run->title,
	};
	const struct stk_output_opts opts = { .show_tid = cfg->common.n_tids > 0 };

	return stk_session_results(&run->session, &report, &opts);
}

static void print_header(void *arg)
{
	const struct res_run *run = arg;
	const struct res_config *cfg = &run->cfg;

	printf("Tracing ");
	for (size_t i = 0; i < run->n_types; i++)
		printf("%s%s (%s)", i ? ", " : "", run->types[i].type, run->types[i].unit);
	printf(" of %s by %s stack", stk_stack_opts_whose(&cfg->common), stk_stack_opts_which(&cfg->common));
	stk_stack_opts_print_until(&cfg->common);
}

/* -v: what the kernel counted that is no stack's (bpf/resources_types.h facts). */
static void report_facts(const struct res_run *run)
{
	const struct bpf_map *facts = run->attach.skel->maps.res_facts;
	uint64_t unseen = stk_percpu_sum(facts, STK_RES_FACT_BLOCK_UNSEEN);
	uint64_t full = stk_percpu_sum(facts, STK_RES_FACT_BLOCK_FULL);
	uint64_t baselines = stk_percpu_sum(facts, STK_RES_FACT_RSS_BASELINE);
	uint64_t other = stk_percpu_sum(facts, STK_RES_FACT_SOCKET_UNKNOWN);

	if (full)
		fprintf(stderr, "WARNING: %llu block requests not counted: too many in flight at once\n",
			(unsigned long long)full);
	if (!run->cfg.common.verbose)
		return;
	fprintf(stderr, "%s: %llu block requests issued that were made before the capture (or merged in front of "
		"another), not counted; %llu address spaces' first rss change taken as their baseline; %llu socket "
		"calls on other protocols left out\n", APPLET, (unsigned long long)unseen,
		(unsigned long long)baselines, (unsigned long long)other);
}

/* Stop counting before reading, so the totals are one snapshot. */
static void detach(void *arg)
{
	struct res_run *run = arg;

	stk_res_detach(&run->attach);
	report_facts(run);
}

/* The report's value types, and the kinds recorded: each kind asked for whose source runs here (a's choice). */
static void choose_types(struct res_run *run, const struct stk_res_attachment *a)
{
	run->n_types = 0;
	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		const struct stk_res_kind_info *i = stk_res_kind((enum stk_res_kind)k);

		run->kinds[k] = (struct stk_weight_kind){ .report_type = -1, .divisor = i->divisor, .trim_tracing = true,
							  .res_marks = true, .res_kind = (uint16_t)k };
		run->events[k] = (struct stk_event_desc){ 0 };
		if (!run->cfg.want.on[k] || !a->chosen[i->source])
			continue;
		run->kinds[k].report_type = (int)run->n_types;
		run->types[run->n_types++] = (struct stk_value_type){ i->type, i->unit };
		run->events[k] = stk_res_event_desc((enum stk_res_kind)k);
		stk_rec_event_sampling(&run->events[k], stk_rec_kind_of_res((enum stk_res_kind)k), run->cfg.want.every[k]);
	}
	size_t used = (size_t)snprintf(run->title, sizeof(run->title), "stk resources:");
	for (size_t t = 0; t < run->n_types && used < sizeof(run->title); t++)
		used += (size_t)snprintf(run->title + used, sizeof(run->title) - used, "%s %s (%s)", t ? "," : "",
					 run->types[t].type, run->types[t].unit);
}

/* One line per source: unavailable (always said), or with -v its mechanism and what it passed over. */
static void say_sources(const struct res_run *run)
{
	const struct res_config *cfg = &run->cfg;
	const struct stk_res_attachment *a = &run->attach;
	char kinds[64], passed[1024];

	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (!stk_res_request_wants(&cfg->want, (enum stk_res_source)s))
			continue;
		stk_res_source_kinds(&cfg->want, (enum stk_res_source)s, false, kinds, sizeof(kinds));
		if (!a->chosen[s])
			fprintf(stderr, "%s: %s unavailable on this kernel (%s)\n", APPLET, kinds, a->tried[s]);
		else if (cfg->common.verbose)
			fprintf(stderr, "%s: %s: mechanism %s%s\n", APPLET, kinds, a->chosen[s]->name,
				stk_climb_passed_over(a->tried[s], passed, sizeof(passed)));
	}
	if (by_sys_exit(a, STK_RES_SRC_FILES) && !stk_session_has_btf(&run->session))
		fprintf(stderr, "%s: read and write include sockets' bytes: without BTF the file behind a descriptor "
			"cannot be read\n", APPLET);
	if (cfg->common.verbose)
		fprintf(stderr, "%s: BTF %s; unwind %s\n", APPLET, stk_btf_kind_name(run->session.btf.kind),
			stk_unwind_rung_name(run->session.unwind.rung));
}

static int setup(void *arg)
{
	struct res_run *run = arg;
	struct res_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	/* each kind's stack shows what moved (block direction, system call) and who moved it */
	const struct stk_stack_applet resources = {
		.name = APPLET, .counts = true, .unit = "events", .hashes = true,
		.rules = { .kinds = run->kinds, .n_kinds = STK_RES_KIND_COUNT },
		.events = { .per_thread = cfg->common.n_tids > 0, .kinds = run->events, .n_kinds = STK_RES_KIND_COUNT },
		.header = print_header, .detach = detach, .results = print_results,
	};
	char err[2048], release[256] = "", tracefs_err[256];
	const char *how;

	if (stk_session_open(session, &resources, &cfg->common, cfg->common.pids, cfg->common.n_pids))
		return -1;
	if (stk_session_plan_unwind(session, &cfg->common, true, STK_UNWIND_CFI))
		return -1;
	if (stk_cpus_online(&run->cpus, &run->n_cpus)) {
		stk_error(APPLET, "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		return -1;
	}
	stk_kernel_release(release, sizeof(release));
	enum stk_unwind_rung rung = session->unwind.rung;
	const struct stk_res_attach_request req = {
		.want = &cfg->want,
		.program_suffix = stk_unwind_program_suffix(rung),
		.maps = res_maps,
		.extra_maps = stk_session_extra_maps(session),
		.extra_programs = stk_session_extra_programs(session),
		.btf_custom_path = stk_session_btf_path(session),
		.env = {
			.kernel_btf = session->btf.kernel_btf,
			.tracefs_error = stk_tracefs_ensure(&how, tracefs_err, sizeof(tracefs_err)) ? tracefs_err : NULL,
			.root = "",
			.any_btf = stk_session_has_btf(session),
			.release = release,
		},
		.cpus = run->cpus,
		.n_cpus = run->n_cpus,
		.before_load = size_maps,
		.after_load = write_config,
		.ctx = run,
	};
	int ret = stk_res_attach(&run->attach, &req, err, sizeof(err));
	say_sources(run);
	if (ret) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	return stk_session_start(session, 0);
}

static int capture(void *run)
{
	return stk_session_capture(&((struct res_run *)run)->session, run);
}

static void teardown(void *arg)
{
	struct res_run *run = arg;

	stk_res_attachment_release(&run->attach);
	stk_session_close(&run->session);
	stk_stack_opts_free(&run->cfg.common);
	free(run->cpus);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = capture, .teardown = teardown,
};

STK_APPLET(resources, .name = "resources", .summary = "which code paths grow memory and do disk and network I/O, and how much?",
	   .steps = &steps, .run_size = sizeof(struct res_run), .bare_link = true, .rank = 35);
