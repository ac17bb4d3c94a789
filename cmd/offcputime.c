/*
 * stk offcputime: where and how long do threads block? Records a thread's
 * stacks when it switches out and adds the time it stayed off CPU when it
 * switches back in (core/attach/attach_sched.c picks the sched_switch mechanism);
 * threads still off CPU when the capture ends are reported with the time so
 * far, marked by a "[still off-CPU]" leaf frame. Options and output follow
 * bcc's offcputime; totals are in microseconds.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
#include "bpf/event_types.h"
#include "bpf/offcputime_types.h"
#include "core/attach/attach_sched.h"
#include "core/base/clock.h"
#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/record/kinds.h"
#include "core/session/session.h"
#include "core/threads/sched_state.h"

#define APPLET "offcputime"
/* The leaf frame that marks a thread still blocked when the capture ended. */
#define STILL_OFF_CPU "[still off-CPU]"

struct offcpu_config {
	struct stk_stack_opts common; /* -p -t -U -K -d -f -o ... shared with the other stack applets */
	bool user_threads, kernel_threads;
	bool state_given;
	struct stk_state_filter state;
	const char *state_text;
	uint64_t min_us, max_us;
	uint64_t every;        /* --sample N: one switch-out in N taken, its time N times over (1: all) */
	const char *mechanism; /* --mechanism: a sched_switch rung, or NULL: the first that works */
};

static void print_help(void)
{
	printf("usage: stk offcputime [options] [duration]\n\n"
	       "Summarizes off-CPU time (blocked, sleeping, preempted) by stack, in microseconds.\n"
	       "duration: seconds to trace (default: until Ctrl-C or SIGTERM).\n\n"
	       "  -p, --pid PID[,PID...]      only these processes (host PIDs)\n"
	       "  -t, --tid TID[,TID...]      only these threads; stacks are kept per thread\n"
	       "  -u, --user-threads-only     only user threads (no kernel threads)\n"
	       "  -k, --kernel-threads-only   only kernel threads\n"
	       "  -U, --user-stacks-only      only user stacks\n"
	       "  -K, --kernel-stacks-only    only kernel stacks\n"
	       "  -d, --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n"
	       "  -m, --min-block-time US     count only blocks of at least US microseconds\n"
	       "  -M, --max-block-time US     count only blocks of at most US microseconds\n"
	       "      --sample N              take one switch-out in N, chosen at random, and count its block N\n"
	       "                              times over: unbiased totals for a fraction of the cost (default 1: all)\n"
	       "      --state STATE           only switch-outs in this state: letters R S D T t I P\n"
	       "                              (comma separated) or bcc's number (0 = runnable, else a mask)\n"
	       "      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       STK_UNWIND_HELP,
	       STK_STACK_STORAGE_DEFAULT);
	stk_output_help(stdout, STK_OFFER_ALL, STK_FORMAT_TEXT);
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       STK_EVENT_HELP
	       "      --mechanism M           tp_btf, raw_tp, tracepoint or kprobe instead of the first that works\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               address and module for every frame; mechanism and losses\n"
	       "  -h, --help                  this help\n");
}

enum offcpu_long_opt {
	OPT_STATE = STK_OPT_APPLET,
	OPT_MECHANISM,
	OPT_SAMPLE,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* The exclusions between offcputime's own options. */
static int check_args(const struct offcpu_config *cfg)
{
	if (cfg->user_threads && cfg->kernel_threads)
		return usage_error("-u and -k are mutually exclusive%s", "");
	if (cfg->common.n_pids && cfg->common.n_tids)
		return usage_error("-p and -t are mutually exclusive%s", "");
	if (cfg->min_us > cfg->max_us)
		return usage_error("-m must not be greater than -M%s", "");
	return 0;
}

/* Everything the capture owns, released in one place. */
struct offcpu_run {
	struct offcpu_config cfg;
	int64_t end_mono; /* when tracing stopped */
	struct stk_session session;
	struct stk_event_desc event; /* its events, as the event log describes them (the session points here) */
	struct stk_sched_attachment *attachment;
	struct stk_bpf *skel; /* owned by attachment */
};

static int parse_args(void *run, const struct stk_invocation *inv)
{
	struct offcpu_config *cfg = &((struct offcpu_run *)run)->cfg;
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('t'),
		{ "user-threads-only", no_argument, NULL, 'u' },
		{ "kernel-threads-only", no_argument, NULL, 'k' },
		{ "min-block-time", required_argument, NULL, 'm' },
		{ "max-block-time", required_argument, NULL, 'M' },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
		{ 0 },
	};
	char msg[512];
	int c;

	stk_stack_opts_begin(&cfg->common, APPLET, inv, 't');
	cfg->min_us = 1; /* bcc's default */
	cfg->max_us = UINT64_MAX / 1000;
	cfg->every = 1;
	while ((c = stk_stack_getopt(&cfg->common, ":" STK_STACK_SHORTOPTS "t:ukm:M:", longopts, NULL, msg,
				     sizeof(msg))) != -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
		case 'u': cfg->user_threads = true; break;
		case 'k': cfg->kernel_threads = true; break;
		case 'm':
			if (stk_parse_u64(optarg, 0, UINT64_MAX / 1000, &cfg->min_us))
				return usage_error("-m %s: expected a whole number of microseconds", optarg);
			break;
		case 'M':
			if (stk_parse_u64(optarg, 1, UINT64_MAX / 1000, &cfg->max_us))
				return usage_error("-M %s: expected a positive whole number of microseconds", optarg);
			break;
		case OPT_STATE:
			if (stk_state_filter_parse(optarg, &cfg->state))
				return usage_error("--state %s: expected letters of R S D T t I P (e.g. D or S,D) "
						   "or a number (bcc's state mask)", optarg);
			cfg->state_given = true;
			cfg->state_text = optarg;
			break;
		case OPT_SAMPLE:
			if (stk_parse_u64(optarg, 1, STK_REC_OFFCPU_EVERY_MAX, &cfg->every))
				return usage_error("--sample %s: expected N from 1 to %d (one switch-out in N)", optarg,
						   STK_REC_OFFCPU_EVERY_MAX);
			break;
		case OPT_MECHANISM:
			if (stk_rung_check(STK_ATTACH_SCHED_SWITCH, "--mechanism", optarg, msg, sizeof(msg)))
				return usage_error("%s", msg);
			cfg->mechanism = optarg;
			break;
		case 'h': print_help(); return 1;
		}
	}
	if (check_args(cfg))
		return -1;
	if (stk_stack_opts_finish(&cfg->common, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* The program of each sched_switch mechanism, and its own maps (the stack maps are the session's). */
static const char *const sched_programs[STK_SCHED_MECH_COUNT] = STK_OFFCPU_PROGRAMS;
static const char *const offcpu_maps[] = STK_OFFCPU_MAPS;

static int size_maps(struct stk_bpf *s, void *ctx)
{
	return stk_session_size_maps(&((struct offcpu_run *)ctx)->session, s);
}

/* After load (each mechanism tried brings its skeleton): the session's part, then the configuration. */
static int write_config(struct stk_bpf *s, void *ctx)
{
	struct offcpu_run *run = ctx;
	const struct offcpu_config *cfg = &run->cfg;
	const struct stk_offcpu_config bc = {
		.stack = stk_session_stack_config(&run->session),
		.user_threads_only = cfg->user_threads,
		.kernel_threads_only = cfg->kernel_threads,
		.state_running = cfg->state.running,
		.state_include = cfg->state.include,
		.state_exclude = cfg->state.exclude,
		.state_idle = cfg->state.idle,
		.min_ns = cfg->min_us * 1000,
		.max_ns = cfg->max_us * 1000,
		.every = (uint32_t)cfg->every,
	};
	uint32_t zero = 0;

	if (stk_session_connect(&run->session, s))
		return -1;
	return bpf_map__update_elem(s->maps.offcpu_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

/* A block still going at the end, as an event of the recording (its time so far). */
static void record_still(struct offcpu_run *run, const struct stk_offcpu_start *st, uint64_t ns)
{
	struct stk_event e = {
		.ref = st->ref, .time = st->ts, .weight = ns * run->cfg.every, .cpu = st->cpu, .kind = STK_EVENT_OFFCPU,
		.state = (uint8_t)st->state,
	};

	e.ref.flags |= STK_REF_STILL;
	stk_session_event_add(&run->session, &e);
}

/* Threads that switched out during the capture and never came back: time so far. */
static int collect_still_off_cpu(struct offcpu_run *run, struct stk_stack_list *c, uint64_t end_ns)
{
	const struct offcpu_config *cfg = &run->cfg;
	int start_fd = bpf_map__fd(run->skel->maps.offcpu_start);
	uint64_t key, next, *prev = NULL;
	struct stk_offcpu_start st;
	int ret = 0;

	while (ret == 0 && bpf_map_get_next_key(start_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(start_fd, &key, &st) || st.ts > end_ns)
			continue;
		uint64_t ns = end_ns - st.ts;
		/* -M: a block already longer than the maximum can only end longer */
		if (ns < cfg->min_us * 1000 || ns > cfg->max_us * 1000)
			continue;
		struct stk_stack_ref still = st.ref;

		still.tid = cfg->common.n_tids ? st.ref.tid : 0;
		still.flags |= STK_REF_STILL;
		ret = stk_stack_resolve_total(&run->session.resolver, c, &still, ns * cfg->every);
		record_still(run, &st, ns);
	}
	return ret;
}

static int print_results(void *arg)
{
	struct offcpu_run *run = arg;
	int64_t end_mono = run->end_mono;
	const struct offcpu_config *cfg = &run->cfg;
	struct stk_stack_list c = { 0 };
	int ret;

	if (stk_session_collect(&run->session, &c, false)) {
		stk_stack_list_free(&c);
		return -1;
	}
	if (collect_still_off_cpu(run, &c, (uint64_t)end_mono)) {
		stk_error(APPLET, "out of memory while reading the blocks still going");
		stk_stack_list_free(&c);
		return -1;
	}
	struct stk_report report = {
		.value_type = "offcpu",
		.value_unit = "microseconds",
		.duration_nanos = end_mono - run->session.start_mono,
		.title = "stk offcputime",
	};
	const struct stk_output_opts opts = { .show_tid = cfg->common.n_tids > 0 };

	ret = stk_session_print(&run->session, &c, &report, &opts);
	stk_stack_list_free(&c);
	return ret;
}

static void print_header(void *run)
{
	const struct offcpu_config *cfg = &((struct offcpu_run *)run)->cfg;
	const char *whose = cfg->common.n_pids || cfg->common.n_tids ? stk_stack_opts_whose(&cfg->common)
			    : cfg->user_threads ? "all user threads" : cfg->kernel_threads ? "all kernel threads"
			    : "all threads";

	printf("Tracing off-CPU time (us) of %s by %s stack", whose, stk_stack_opts_which(&cfg->common));
	if (cfg->state_given)
		printf(" in state %s", cfg->state_text);
	if (cfg->every > 1)
		printf(", one switch-out in %" PRIu64 " taken at random and weighted %" PRIu64, cfg->every, cfg->every);
	stk_stack_opts_print_until(&cfg->common);
}

/* Stop tracing before reading, so totals and the still-off-CPU set are one snapshot. */
static void detach(void *arg)
{
	struct offcpu_run *run = arg;

	stk_sched_detach(run->attachment);
	run->end_mono = stk_now_ns(CLOCK_MONOTONIC);
}

/* The rungs of the sched_switch ladder, for the -v line: the chosen one (and what kprobe probes). */
static void say_mechanism(const struct offcpu_run *run)
{
	enum stk_sched_mech m = stk_sched_mechanism(run->attachment);
	char what[256];

	snprintf(what, sizeof(what), "mechanism %s%s%s", stk_rung_by_id(STK_ATTACH_SCHED_SWITCH, (int)m)->name,
		 m == STK_SCHED_KPROBE ? " " : "", m == STK_SCHED_KPROBE ? stk_sched_target(run->attachment) : "");
	stk_session_say_mechanism(&run->session, what, stk_sched_tried(run->attachment));
}

static int setup(void *arg)
{
	struct offcpu_run *run = arg;
	struct offcpu_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	const struct stk_btf_source *btf = &session->btf;
	static const struct stk_weight_kind microseconds[] = { { .report_type = 0, .divisor = 1000, .trim_tracing = true } };
	struct stk_event_desc *offcpu = &run->event;
	const struct stk_stack_applet offcputime = {
		.name = APPLET, .counts = true, .unit = "blocks", .hashes = true,
		.rules = { .still_leaf = STILL_OFF_CPU, .kinds = microseconds, .n_kinds = 1 },
		.events = { .per_thread = cfg->common.n_tids > 0, .kinds = offcpu, .n_kinds = 1 },
		.header = print_header, .detach = detach, .results = print_results,
	};
	char err[1024], no_btf[512];

	*offcpu = (struct stk_event_desc){ .event = "offcpu", .unit = "nanoseconds", .divisor = 1000 };
	stk_rec_event_sampling(offcpu, STK_REC_KIND_OFFCPU, cfg->every);
	if (stk_session_open(session, &offcputime, &cfg->common, cfg->common.pids, cfg->common.n_pids) ||
	    stk_session_plan_unwind(session, &cfg->common, true, STK_UNWIND_CFI))
		return -1;
	struct stk_sched_request req = {
		.program_suffix = stk_unwind_program_suffix(session->unwind.rung),
		.free_program = STK_OFFCPU_FREE_PROGRAM,
		.maps = offcpu_maps,
		.extra_maps = stk_session_extra_maps(session),
		.extra_programs = stk_session_extra_programs(session),
		.btf_custom_path = stk_session_btf_path(session),
		.kernel_btf = btf->kernel_btf,
		.core_btf = stk_session_has_btf(session),
		.no_btf_why = no_btf,
		.needs_task_state = cfg->state_given,
		.forced = cfg->mechanism,
		.before_load = size_maps,
		.after_load = write_config,
		.ctx = run,
	};
	for (int m = 0; m < STK_SCHED_MECH_COUNT; m++)
		req.programs[m] = sched_programs[m];
	stk_btf_missing(btf, no_btf, sizeof(no_btf));
	run->attachment = stk_sched_attach(&req, err, sizeof(err));
	if (!run->attachment) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->skel = stk_sched_skeleton(run->attachment);
	say_mechanism(run);
	return stk_session_start(session, 0);
}

static int capture(void *run)
{
	return stk_session_capture(&((struct offcpu_run *)run)->session, run);
}

static void teardown(void *arg)
{
	struct offcpu_run *run = arg;
	stk_sched_attachment_free(run->attachment);
	stk_session_close(&run->session);
	stk_stack_opts_free(&run->cfg.common);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = capture, .teardown = teardown,
};

STK_APPLET(offcputime, .name = "offcputime", .summary = "where and how long do threads block?", .steps = &steps,
	   .run_size = sizeof(struct offcpu_run), .bare_link = true, .rank = 30);
