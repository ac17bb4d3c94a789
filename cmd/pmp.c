/*
 * stk pmp: what is every thread doing right now? One snapshot of every
 * thread of the host (or of -p / -t): kernel frames and the user stack,
 * unwound with CFI in user space, taken without stopping any thread
 * (core/snapshot/bpf/snapshot_source.h picks the mechanism), counted by
 * stack and printed as pt-pmp does: one line per distinct stack, the number
 * of threads, the frames leaf first, most frequent first. -n snapshots
 * -i seconds apart add up, as pt-pmp's --iterations and --interval.
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

#include "bpf/pmp_types.h"
#include "core/base/clock.h"
#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/btf/btf_source.h"
#include "core/ladder/climb.h"
#include "core/ladder/ladder.h"
#include "core/options/stack_opts.h"
#include "core/session/session.h"
#include "core/snapshot/bpf/snapshot_source.h"
#include "core/snapshot/snap_count.h"
#include "core/snapshot/snap_unwind.h"
#include "core/sym/symbolize.h"

#define APPLET "pmp"
#define DEFAULT_STACK_BYTES 16384
/* How long a round waits for threads on a CPU to run long enough for a sample. */
#define RUNNING_MS 100
/* A runnable thread that got no CPU in those rounds (a busy host) is waited for up to this long in all. */
#define STARVED_MS 2000
#define MAX_USER_FRAMES 1024

struct pmp_config {
	struct stk_stack_opts common; /* -p -t -U -K -d -f -o ... shared with the other stack applets */
	uint64_t iterations;
	long interval_ms;
	bool state_frame;
	const char *mechanism; /* --mechanism: a thread snapshot rung, or NULL: the first that works */
};

static void print_help(void)
{
	printf("usage: stk pmp [options]\n\n"
	       "Every thread's stack right now, as pt-pmp (gdb) shows it, without stopping the threads:\n"
	       "one snapshot of all threads of the host (or of -p / -t), kernel frames and the user\n"
	       "stack unwound with CFI, one line per distinct stack: the number of threads, then the\n"
	       "frames leaf first, most frequent first.\n\n"
	       "  -p, --pid PID[,PID...]      only these processes (host PIDs)\n"
	       "  -t, --tid TID[,TID...]      only these threads; stacks are kept per thread\n"
	       "  -n, --iterations N          N snapshots, added up (default 1)\n"
	       "  -i, --interval SECS         seconds between snapshots (default 0)\n"
	       "  -S, --state                 a leading frame with each thread's state and wait channel\n"
	       "                              ([SLEEP futex_wait_queue]): threads merge by state and stack\n"
	       "  -U, --user-stacks-only      only user frames (what pt-pmp shows)\n"
	       "  -K, --kernel-stacks-only    only kernel frames\n"
	       "  -d, --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n");
	stk_output_help(stdout, STK_OFFER_TOTALS, STK_FORMAT_PMP);
	printf("      --no-args               C++ names without parameter lists\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       "      --stack-bytes N         user stack copied per thread (default %d, at most %d); a\n"
	       "                              deeper chain reads on from the memory of a thread still blocked\n"
	       STK_SYMBOL_HELP
	       "      --mechanism M           task_iter_copy, proc or ptrace instead of the first that works\n"
	       "                              (ptrace stops each thread while it is read)\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               mechanism, timings, and per thread (stderr) its state, wait\n"
	       "                              channel and how its user chain ended\n"
	       "  -h, --help                  this help\n",
	       DEFAULT_STACK_BYTES, STK_PMP_STACK_MAX);
}

enum pmp_long_opt {
	OPT_MECHANISM = STK_OPT_APPLET,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* Everything a run owns, released in teardown(). */
struct pmp_run {
	struct pmp_config cfg;
	struct stk_session session;
	struct stk_snapper *snapper;
	struct stk_snap_unwinder *unwinder;
	struct stk_snap_counter *counter;
	struct stk_snap snap;
	uint64_t ips[MAX_USER_FRAMES];
	size_t threads, roots; /* -v: threads counted, and those whose chain reached a thread root */
	double snapshot_ms, unwind_ms;
};

static int parse_args(void *arg, const struct stk_invocation *inv)
{
	struct pmp_config *cfg = &((struct pmp_run *)arg)->cfg;
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "delimited", no_argument, NULL, 'd' },
		{ "folded", no_argument, NULL, 'f' },
		{ "perf-max-stack-depth", required_argument, NULL, STK_OPT_MAX_DEPTH },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, STK_OPT_FORMAT },
		{ "no-args", no_argument, NULL, STK_OPT_NO_ARGS },
		{ "btf", required_argument, NULL, STK_OPT_BTF },
		{ "stack-bytes", required_argument, NULL, STK_OPT_STACK_BYTES },
		STK_SYMBOL_LONGOPTS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "state", no_argument, NULL, 'S' },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ 0 },
	};
	char msg[512];
	int c;

	stk_stack_opts_begin(&cfg->common, APPLET, inv, 't');
	cfg->common.stack_bytes = DEFAULT_STACK_BYTES;
	cfg->iterations = 1;
	while ((c = stk_stack_getopt(&cfg->common, ":" STK_STACK_SHORTOPTS "t:n:i:S", longopts, NULL, msg,
				     sizeof(msg))) != -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
		case 'n':
			if (stk_parse_u64(optarg, 1, 1000000, &cfg->iterations))
				return usage_error("-n %s: expected a whole number of snapshots from 1 to 1000000", optarg);
			break;
		case 'i':
			if (strcmp(optarg, "0") != 0 && stk_parse_seconds(optarg, &cfg->interval_ms))
				return usage_error("-i %s: expected a number of seconds", optarg);
			break;
		case 'S': cfg->state_frame = true; break;
		case OPT_MECHANISM:
			if (stk_rung_check(STK_ATTACH_THREAD_SNAPSHOT, "--mechanism", optarg, msg, sizeof(msg)))
				return usage_error("%s", msg);
			cfg->mechanism = optarg;
			break;
		case 'h': print_help(); return 1;
		}
	}
	if (optind < inv->argc)
		return usage_error("unexpected argument '%s'", inv->argv[optind]);
	if (cfg->common.stack_bytes > STK_PMP_STACK_MAX)
		return usage_error("--stack-bytes %u: at most %d for pmp", cfg->common.stack_bytes, STK_PMP_STACK_MAX);
	if (cfg->common.n_pids && cfg->common.n_tids)
		return usage_error("-p and -t are mutually exclusive%s", "");
	if (!cfg->common.format_given)
		cfg->common.format = STK_FORMAT_PMP;
	if (stk_stack_opts_finish(&cfg->common, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

static int setup(void *arg)
{
	struct pmp_run *run = arg;
	struct pmp_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	char err[1024];

	static const struct stk_stack_applet pmp = { .name = APPLET };

	if (stk_session_open(session, &pmp, &cfg->common, cfg->common.pids, cfg->common.n_pids))
		return -1;
	const struct stk_snap_request req = {
		.want = { .pids = cfg->common.pids, .n_pids = cfg->common.n_pids,
			  .tids = cfg->common.tids, .n_tids = cfg->common.n_tids },
		.self_tgid = (uint32_t)getpid(),
		.stack_bytes = cfg->common.stack_bytes,
		.running_ms = RUNNING_MS,
		.starved_ms = STARVED_MS,
		.btf_custom_path = stk_session_btf_path(session),
		.kernel_btf = session->btf.kernel_btf,
		.forced = cfg->mechanism,
	};
	run->snapper = stk_snapper_open(&req, err, sizeof(err));
	stk_btf_source_release(&session->btf); /* loaded: an embedded BTF's memfd is done */
	if (!run->snapper) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	const char *tried = stk_snapper_tried(run->snapper);
	char passed[1024];

	if (cfg->common.verbose)
		fprintf(stderr, "pmp: mechanism %s%s\n", stk_snapper_mech_name(run->snapper),
			stk_climb_passed_over(tried, passed, sizeof(passed)));
	if (stk_snapper_mech(run->snapper) == STK_SNAP_PTRACE)
		fprintf(stderr, "pmp: WARNING: mechanism ptrace stops each thread while its registers and stack are "
			"read (this kernel offers nothing else%s%s)\n", tried[0] ? ": " : "", tried);
	const struct stk_snap_count_opts co = {
		.per_thread = cfg->common.n_tids > 0, .state_frame = cfg->state_frame,
		.user_only = cfg->common.user_only, .kernel_only = cfg->common.kernel_only,
	};
	/* Kernel symbols (frames, wait channels) read now: the time from a snapshot to its output need not include that. */
	char why[256];
	if (!cfg->common.user_only || cfg->state_frame || cfg->common.verbose)
		stk_symbolizer_kernel_status(session->sym, why, sizeof(why));
	run->unwinder = stk_snap_unwinder_new(session->sym, "/proc");
	run->counter = stk_snap_counter_new(&co, stk_snapper_names(run->snapper), session->sym);
	if (!run->unwinder || !run->counter) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	/* The processes' CFI and debug files read now too: what follows a snapshot is only its own work. */
	for (size_t i = 0; i < cfg->common.n_pids && !cfg->common.kernel_only; i++) {
		stk_snap_unwinder_prepare(run->unwinder, cfg->common.pids[i]);
		stk_symbolizer_open_debug(session->sym, (pid_t)cfg->common.pids[i]);
	}
	return stk_session_start(session, cfg->iterations > 1 ? cfg->interval_ms : 0);
}

static double ms_between(int64_t from, int64_t to)
{
	return (double)(to - from) / 1e6;
}

/* -v: one line per thread (stderr). */
static void describe_thread(struct pmp_run *run, const struct stk_snap_thread *t, size_t n_user, const char *stop)
{
	char wchan[64];

	stk_snap_wchan(run->counter, t, wchan, sizeof(wchan));
	fprintf(stderr, "pmp: %u/%u %s %s%s%s: %s, %zu kernel and %zu user frames, %s\n", t->tgid, t->tid, t->comm,
		stk_tstate_name(t->state), wchan[0] ? " in " : "", wchan, t->how ? t->how : "?", t->n_kernel, n_user,
		stop ? stop : "no user stack");
}

/* Counts one snapshot's threads, each with its unwound user chain. 0, or -1 when out of memory. */
static int count_snapshot(struct pmp_run *run)
{
	const struct stk_stack_opts *o = &run->cfg.common;
	uint64_t max = o->max_depth < MAX_USER_FRAMES ? o->max_depth : MAX_USER_FRAMES;
	static const char root_stop[] = "outermost frame";

	for (size_t i = 0; i < run->snap.n; i++) {
		const struct stk_snap_thread *t = &run->snap.threads[i];
		struct stk_unwind_result r = { .ips = run->ips, .max = (size_t)max };

		if (!o->kernel_only)
			stk_snap_unwind(run->unwinder, t, &r);
		if (stk_snap_count(run->counter, t, run->ips, r.n, r.stop))
			return -1;
		run->threads++;
		if (r.stop && strncmp(r.stop, root_stop, sizeof(root_stop) - 1) == 0)
			run->roots++;
		if (o->verbose)
			describe_thread(run, t, r.n, r.stop);
	}
	return 0;
}

/* One snapshot taken and counted. 0, or -1 after printing why. */
static int take_one(struct pmp_run *run)
{
	struct stk_snap_stats st;
	int64_t t0 = stk_now_ns(CLOCK_MONOTONIC);

	if (stk_snapper_take(run->snapper, &run->snap, &st)) {
		stk_error(APPLET, "taking the snapshot failed: %s", strerror(errno));
		return -1;
	}
	int64_t t1 = stk_now_ns(CLOCK_MONOTONIC);
	if (count_snapshot(run)) {
		stk_error(APPLET, "out of memory while counting stacks");
		return -1;
	}
	run->snapshot_ms += ms_between(t0, t1);
	run->unwind_ms += ms_between(t1, stk_now_ns(CLOCK_MONOTONIC));
	if (run->cfg.common.verbose)
		fprintf(stderr, "pmp: snapshot of %zu threads in %.1f ms (first pass %.1f ms); %zu on a CPU sampled as "
			"they ran, %zu taken again, %zu without a user stack for running throughout (%zu of them given no CPU)%s%s\n",
			st.threads, st.total_ms, st.pass_ms, st.sampled_running, st.retaken, st.unresolved, st.starved,
			st.perf_why ? "; " : "", st.perf_why ? st.perf_why : "");
	else if (st.perf_why && st.unresolved)
		fprintf(stderr, "pmp: WARNING: %zu threads on a CPU have no user stack: %s\n", st.unresolved,
			st.perf_why);
	if (!st.threads)
		fprintf(stderr, "pmp: no thread found%s\n", run->cfg.common.n_pids + run->cfg.common.n_tids
								? " (the processes exited)" : "");
	return 0;
}

static struct stk_stack *add_stack(void *ctx)
{
	return stk_stack_list_add(ctx);
}

static int print_results(struct pmp_run *run)
{
	struct stk_session *s = &run->session;
	struct stk_stack_list list = { 0 };
	int ret;

	stk_symbolizer_set_deadline(s->sym, STK_SYMBOLIZE_DEADLINE_MS);
	stk_symbolizer_set_stop(s->sym, stk_run_loop_stop_requested, s->loop);
	stk_session_begin_results(s);
	if (stk_snap_counter_collect(run->counter, add_stack, &list)) {
		stk_error(APPLET, "out of memory while naming frames");
		stk_stack_list_free(&list);
		return -1;
	}
	struct stk_report report = { .value_type = "threads", .value_unit = "count", .title = "stk pmp" };
	struct stk_output_opts opts = { .show_tid = run->cfg.common.n_tids > 0 };
	ret = stk_session_print(s, &list, &report, &opts);
	stk_stack_list_free(&list);
	return ret;
}

static int run_capture(void *arg)
{
	struct pmp_run *run = arg;
	const struct pmp_config *cfg = &run->cfg;
	int ret = 0;

	for (uint64_t i = 0; i < cfg->iterations; i++) {
		if (i && cfg->interval_ms && stk_session_wait(&run->session) != STK_RUN_INTERVAL)
			break; /* Ctrl-C or SIGTERM: print what was taken */
		if (take_one(run)) {
			ret = 1;
			break;
		}
		if (stk_run_loop_stop_requested(run->session.loop))
			break;
	}
	if (cfg->common.verbose) {
		size_t more, ran;

		stk_snap_unwind_stats(run->unwinder, &more, &ran);
		fprintf(stderr, "pmp: %zu threads, %zu reached a thread root; snapshots %.1f ms, unwinding %.1f ms; "
			"%zu chains read on past their copy (%zu of those threads had run: cut at the copy)\n",
			run->threads, run->roots, run->snapshot_ms, run->unwind_ms, more, ran);
	}
	if (print_results(run))
		ret = 1;
	return ret;
}

static void teardown(void *arg)
{
	struct pmp_run *run = arg;

	stk_snap_free(&run->snap);
	stk_snap_counter_free(run->counter);
	stk_snap_unwinder_free(run->unwinder);
	stk_snapper_free(run->snapper);
	stk_session_close(&run->session);
	stk_stack_opts_free(&run->cfg.common);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = run_capture, .teardown = teardown,
};

STK_APPLET(pmp, .name = "pmp", .summary = "what is every thread's stack right now? (pt-pmp without stopping them)",
	   .steps = &steps, .run_size = sizeof(struct pmp_run), .bare_link = true, .rank = 45);
