/*
 * stk offcputime: where and how long do threads block? Records a thread's
 * stacks when it switches out and adds the time it stayed off CPU when it
 * switches back in (core/attach_sched picks the sched_switch mechanism);
 * threads still off CPU when the capture ends are reported with the time so
 * far, marked by a "[still off-CPU]" leaf frame. Options and output follow
 * bcc's offcputime; totals are in microseconds.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmd/applets.h"
#include "stk.skel.h"
#include "bpf/offcputime.h"
#include "core/attach/attach_sched.h"
#include "core/bpf/bpf_object.h"
#include "core/btf/btf_source.h"
#include "core/session/capture.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/output/output.h"
#include "core/bpf/process_watch.h"
#include "core/base/run_loop.h"
#include "core/stack/stack_opts.h"
#include "core/threads/sched_state.h"
#include "core/session/stack_resolve.h"
#include "core/stack/stack_trim.h"
#include "core/sym/symbolize.h"
#include "core/base/sysfs_read.h"

#define APPLET "offcputime"
#define DEFAULT_STACK_STORAGE 16384
#define DEFAULT_COUNTS_SIZE 40960
/* The leaf frame that marks a thread still blocked when the capture ended. */
#define STILL_OFF_CPU "[still off-CPU]"

struct offcpu_config {
	struct stk_stack_opts common; /* -p -t -U -K -d -f -o ... shared with the other stack applets */
	bool user_threads, kernel_threads;
	bool state_given;
	struct stk_state_filter state;
	const char *state_text;
	uint64_t min_us, max_us;
	int mechanism; /* enum stk_sched_mech, or -1: first that works */
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
	       "      --state STATE           only switch-outs in this state: letters R S D T t I P\n"
	       "                              (comma separated) or bcc's number (0 = runnable, else a mask)\n"
	       "      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       "  -o, --output FILE           write there; format from --format or the extension\n"
	       "                              (.txt .folded .pmp .pb.gz .svg); may be repeated\n"
	       "      --format FMT            text, folded, pmp, pprof or svg\n"
	       "      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       "      --mechanism M           tp_btf, raw_tp, tracepoint or kprobe instead of the first that works\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               address and module for every frame; mechanism and losses\n"
	       "  -h, --help                  this help\n",
	       DEFAULT_STACK_STORAGE);
}

enum offcpu_long_opt {
	OPT_STATE = STK_OPT_APPLET,
	OPT_MECHANISM,
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

static int parse_args(int argc, char **argv, struct offcpu_config *cfg)
{
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('t'),
		{ "user-threads-only", no_argument, NULL, 'u' },
		{ "kernel-threads-only", no_argument, NULL, 'k' },
		{ "min-block-time", required_argument, NULL, 'm' },
		{ "max-block-time", required_argument, NULL, 'M' },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ 0 },
	};
	long max_stack = 127;
	enum stk_sched_mech mech;
	char msg[512];
	int c, taken;

	stk_read_long("/proc/sys/kernel/perf_event_max_stack", &max_stack);
	stk_stack_opts_init(&cfg->common, 't', DEFAULT_STACK_STORAGE, (uint64_t)max_stack);
	cfg->min_us = 1; /* bcc's default */
	cfg->max_us = UINT64_MAX / 1000;
	cfg->mechanism = -1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":" STK_STACK_SHORTOPTS "t:ukm:M:", longopts, NULL)) != -1) {
		taken = stk_stack_opt(&cfg->common, c, optarg, msg, sizeof(msg));
		if (taken < 0)
			return usage_error("%s", msg);
		if (taken)
			continue;
		switch (c) {
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
		case OPT_MECHANISM:
			if (stk_sched_mech_from_name(optarg, &mech))
				return usage_error("--mechanism %s: expected tp_btf, raw_tp, tracepoint or kprobe", optarg);
			cfg->mechanism = (int)mech;
			break;
		case 'h': print_help(); return 1;
		case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s' (see 'stk offcputime --help')", argv[optind - 1]);
		}
	}
	if (check_args(cfg))
		return -1;
	if (stk_stack_opts_finish(&cfg->common, argc, argv, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* Everything the capture owns, released in one place. */
struct offcpu_run {
	struct offcpu_config cfg;
	struct stk_sched_attachment *attachment;
	struct stk_bpf *skel; /* owned by attachment */
	struct stk_process_watch *processes;
	struct stk_symbolizer *sym;
	struct stk_run_loop *loop;
	int empty_btf_fd; /* kernels without BTF: see stk_bpf_empty_btf() */
	struct stk_btf_source btf;
	FILE *outs[STK_MAX_OUTPUTS];
};

static const char *const offcpu_maps[] = {
	"offcpu_config", "offcpu_pids", "offcpu_tids", "offcpu_stacks", "offcpu_start",
	"offcpu_counts", "offcpu_stats", "offcpu_seen", "offcpu_new_process", NULL,
};

static int size_maps(struct stk_bpf *s, void *ctx)
{
	const struct offcpu_config *cfg = &((struct offcpu_run *)ctx)->cfg;

	if (bpf_map__set_max_entries(s->maps.offcpu_stacks, (uint32_t)cfg->common.stack_storage_size) ||
	    bpf_map__set_value_size(s->maps.offcpu_stacks, (uint32_t)(cfg->common.max_depth * sizeof(uint64_t))) ||
	    bpf_map__set_max_entries(s->maps.offcpu_counts, DEFAULT_COUNTS_SIZE) ||
	    bpf_map__set_max_entries(s->maps.offcpu_pids, cfg->common.n_pids ? (uint32_t)cfg->common.n_pids : 1) ||
	    bpf_map__set_max_entries(s->maps.offcpu_tids, cfg->common.n_tids ? (uint32_t)cfg->common.n_tids : 1))
		return -1;
	return 0;
}

static int write_filters(struct stk_bpf *s, void *ctx)
{
	const struct offcpu_config *cfg = &((struct offcpu_run *)ctx)->cfg;
	struct stk_offcpu_config bc = {
		.filter_pids = cfg->common.n_pids > 0,
		.filter_tids = cfg->common.n_tids > 0,
		.user_threads_only = cfg->user_threads,
		.kernel_threads_only = cfg->kernel_threads,
		.kernel_stacks = !cfg->common.user_only,
		.user_stacks = !cfg->common.kernel_only,
		.per_thread = cfg->common.n_tids > 0,
		.state_running = cfg->state.running,
		.state_include = cfg->state.include,
		.state_exclude = cfg->state.exclude,
		.state_idle = cfg->state.idle,
		.min_ns = cfg->min_us * 1000,
		.max_ns = cfg->max_us * 1000,
	};
	uint32_t zero = 0;
	uint8_t one = 1;

	for (size_t i = 0; i < cfg->common.n_pids; i++)
		if (bpf_map__update_elem(s->maps.offcpu_pids, &cfg->common.pids[i], sizeof(uint32_t), &one, 1, 0))
			return -1;
	for (size_t i = 0; i < cfg->common.n_tids; i++)
		if (bpf_map__update_elem(s->maps.offcpu_tids, &cfg->common.tids[i], sizeof(uint32_t), &one, 1, 0))
			return -1;
	return bpf_map__update_elem(s->maps.offcpu_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

static uint64_t sum_stat(struct stk_bpf *s, uint32_t slot)
{
	return stk_percpu_sum(s->maps.offcpu_stats, slot);
}

static void report_losses(struct offcpu_run *run)
{
	struct stk_bpf *s = run->skel;
	struct stk_losses l = {
		.collisions = sum_stat(s, STK_OFFCPU_STAT_KSTACK_COLLISION) +
			      sum_stat(s, STK_OFFCPU_STAT_USTACK_COLLISION),
		.stack_map_full = sum_stat(s, STK_OFFCPU_STAT_KSTACK_FULL) +
				  sum_stat(s, STK_OFFCPU_STAT_USTACK_FULL),
		.counts_full = sum_stat(s, STK_OFFCPU_STAT_COUNTS_FULL),
		.new_process_lost = sum_stat(s, STK_OFFCPU_STAT_NEW_PROCESS_LOST),
		.stack_storage_size = run->cfg.common.stack_storage_size,
		.counts_size = DEFAULT_COUNTS_SIZE,
		.unit = "blocks",
	};
	uint64_t start_full = sum_stat(s, STK_OFFCPU_STAT_START_FULL);

	stk_report_losses(&l);
	if (start_full)
		fprintf(stderr, "WARNING: %llu blocks not measured because too many threads were off CPU at "
			"once (start map full)\n", (unsigned long long)start_full);
	if (run->cfg.common.verbose)
		stk_print_symbolizer_stats(APPLET, run->sym);
}

/* Kernel frames start at the scheduler, not in the tracing code that took them. */
static void trim_kernel(struct stk_stack *st)
{
	struct stk_frame *f = (struct stk_frame *)st->kernel;
	size_t skip = f ? stk_tracing_prefix(f, st->n_kernel) : 0;

	if (skip) {
		memmove(f, f + skip, (st->n_kernel - skip) * sizeof(*f));
		st->n_kernel -= skip;
	}
}

/* Prepends the "[still off-CPU]" leaf to the kernel frames. 0 or -1. */
static int mark_still_off_cpu(struct stk_stack *st)
{
	struct stk_frame *f = calloc(st->n_kernel + 1, sizeof(*f));

	if (!f)
		return -1;
	f[0].symbol = STILL_OFF_CPU;
	if (st->n_kernel)
		memcpy(f + 1, st->kernel, st->n_kernel * sizeof(*f));
	free((void *)st->kernel);
	st->kernel = f;
	st->n_kernel++;
	st->kernel_missing = false; /* the marker says more than "[Missed Kernel Stack]" */
	return 0;
}

static int add_stack(struct offcpu_run *run, struct stk_stack_list *c, uint32_t tgid, uint32_t tid, int32_t kid,
		     int32_t uid, const char *comm, uint64_t ns, bool still)
{
	const struct offcpu_config *cfg = &run->cfg;
	int stacks_fd = bpf_map__fd(run->skel->maps.offcpu_stacks);
	struct stk_stack *st;

	if (ns / 1000 == 0)
		return 0;
	const struct stk_counted_key key = {
		.tgid = tgid, .tid = tid, .comm = comm, .kernel_stack_id = kid, .user_stack_id = uid, .value = ns / 1000,
	};
	st = stk_stack_list_add_key(c, &key, stacks_fd, run->sym, (uint32_t)cfg->common.max_depth,
				    cfg->common.user_only, cfg->common.kernel_only);
	if (!st)
		return -1;
	trim_kernel(st);
	return still ? mark_still_off_cpu(st) : 0;
}

struct collect_ctx {
	struct offcpu_run *run;
	struct stk_stack_list *list;
};

static int add_counted(void *ctx, const void *key_bytes, uint64_t ns)
{
	const struct collect_ctx *cc = ctx;
	const struct stk_offcpu_key *key = key_bytes;

	return add_stack(cc->run, cc->list, key->tgid, key->tid, key->kernel_stack_id, key->user_stack_id, key->comm,
			 ns, false);
}

static int collect_counts(struct offcpu_run *run, struct stk_stack_list *c)
{
	struct collect_ctx cc = { run, c };

	return stk_percpu_counts_each(bpf_map__fd(run->skel->maps.offcpu_counts), sizeof(struct stk_offcpu_key),
				      add_counted, &cc);
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
		ret = add_stack(run, c, st.tgid, cfg->common.n_tids ? st.tid : 0, st.kernel_stack_id, st.user_stack_id,
				st.comm, ns, true);
	}
	return ret;
}

static int print_results(struct offcpu_run *run, int64_t start_wall, int64_t start_mono, int64_t end_mono)
{
	const struct offcpu_config *cfg = &run->cfg;
	struct stk_stack_list c = { 0 };
	int ret = 0;
	int64_t resolve_start = stk_now_ns(CLOCK_MONOTONIC);
	char why[256];

	if (!cfg->common.user_only && stk_symbolizer_kernel_status(run->sym, why, sizeof(why)) != 1)
		fprintf(stderr, "WARNING: kernel frames are [unknown]: %s\n", why);
	if (collect_counts(run, &c) || collect_still_off_cpu(run, &c, (uint64_t)end_mono)) {
		stk_error(APPLET, "out of memory while reading the totals");
		stk_stack_list_free(&c);
		return -1;
	}
	struct stk_report report = {
		.stacks = c.stacks,
		.n_stacks = c.n,
		.value_type = "offcpu",
		.value_unit = "microseconds",
		.time_nanos = start_wall,
		.duration_nanos = end_mono - start_mono,
		.title = "stk offcputime",
	};
	struct stk_output_opts opts = {
		.format = cfg->common.format,
		.delimiter = cfg->common.delimiter,
		.verbose = cfg->common.verbose,
		.lines = cfg->common.lines,
		.show_tid = cfg->common.n_tids > 0,
	};
	ret = stk_write_outputs(APPLET, run->outs, cfg->common.output_paths, cfg->common.output_formats, cfg->common.n_outputs,
				&report, &opts);
	if (cfg->common.verbose)
		fprintf(stderr, "offcputime: resolved and printed %zu stacks in %.1f ms\n", c.n,
			(double)(stk_now_ns(CLOCK_MONOTONIC) - resolve_start) / 1e6);
	stk_stack_list_free(&c);
	return ret;
}

static void print_header(const struct offcpu_config *cfg)
{
	const char *who = cfg->common.n_pids ? "the given processes" : cfg->common.n_tids ? "the given threads"
				: cfg->user_threads ? "all user threads" : cfg->kernel_threads ? "all kernel threads"
				: "all threads";
	const char *which = cfg->common.user_only ? "user" : cfg->common.kernel_only ? "kernel" : "user + kernel";

	printf("Tracing off-CPU time (us) of %s by %s stack", who, which);
	if (cfg->state_given)
		printf(" in state %s", cfg->state_text);
	if (cfg->common.duration_ms)
		printf(" for %.3g secs.\n", (double)cfg->common.duration_ms / 1000.0);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}

static int setup(struct offcpu_run *run)
{
	struct offcpu_config *cfg = &run->cfg;
	char err[1024], no_btf[512];
	struct stk_btf_source *btf = &run->btf;

	if (stk_capture_prepare(APPLET, cfg->common.verbose, cfg->common.btf_file, btf))
		return -1;
	if (stk_open_outputs(APPLET, cfg->common.output_paths, cfg->common.n_outputs, run->outs))
		return -1;
	run->sym = stk_symbolizer_for(APPLET, &cfg->common, cfg->common.pids, cfg->common.n_pids);
	if (!run->sym)
		return -1;

	struct stk_sched_request req = {
		.programs = {
			[STK_SCHED_TP_BTF] = "stk_offcpu_tp_btf",
			[STK_SCHED_RAW_TP] = "stk_offcpu_raw_tp",
			[STK_SCHED_TRACEPOINT] = "stk_offcpu_tracepoint",
			[STK_SCHED_KPROBE] = "stk_offcpu_kprobe",
		},
		.free_program = "stk_offcpu_task_free",
		.maps = offcpu_maps,
		.btf_custom_path = stk_btf_custom_path(btf),
		.kernel_btf = btf->kernel_btf,
		.core_btf = btf->kind != STK_BTF_NONE,
		.no_btf_why = no_btf,
		.needs_task_state = cfg->state_given,
		.forced = cfg->mechanism,
		.before_load = size_maps,
		.after_load = write_filters,
		.ctx = run,
	};
	char empty_btf[64];
	stk_btf_missing(btf, no_btf, sizeof(no_btf));
	if (btf->kind == STK_BTF_NONE) {
		run->empty_btf_fd = stk_bpf_empty_btf(empty_btf, sizeof(empty_btf));
		if (run->empty_btf_fd >= 0)
			req.btf_custom_path = empty_btf;
	}
	run->attachment = stk_sched_attach(&req, err, sizeof(err));
	if (!run->attachment) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->skel = stk_sched_skeleton(run->attachment);
	run->loop = stk_run_loop_new(cfg->common.duration_ms, 0, err, sizeof(err));
	if (!run->loop) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->processes = stk_process_watch_start(APPLET, run->skel->maps.offcpu_new_process, run->sym, run->loop);
	if (!run->processes)
		return -1;
	if (cfg->common.verbose) {
		enum stk_sched_mech m = stk_sched_mechanism(run->attachment);
		const char *tried = stk_sched_tried(run->attachment);
		fprintf(stderr, "offcputime: mechanism %s%s%s%s%s%s; BTF %s\n", stk_sched_mech_name(m),
			m == STK_SCHED_KPROBE ? " " : "", m == STK_SCHED_KPROBE ? stk_sched_target(run->attachment) : "",
			tried[0] ? " (passed over: " : "", tried, tried[0] ? ")" : "", stk_btf_kind_name(btf->kind));
	}
	return 0;
}

static void teardown(struct offcpu_run *run)
{
	stk_process_watch_free(run->processes);
	stk_run_loop_free(run->loop);
	stk_sched_attachment_free(run->attachment);
	if (run->sym)
		stk_symbolizer_free(run->sym);
	if (run->empty_btf_fd >= 0)
		close(run->empty_btf_fd);
	stk_btf_source_release(&run->btf);
	for (size_t i = 0; i < STK_MAX_OUTPUTS; i++)
		if (run->outs[i])
			fclose(run->outs[i]);
	stk_stack_opts_free(&run->cfg.common);
}

int offcputime_main(int argc, char **argv)
{
	struct offcpu_run run = { .empty_btf_fd = -1 };
	int64_t entered = stk_now_ns(CLOCK_MONOTONIC);
	int ret = parse_args(argc, argv, &run.cfg);

	if (ret) {
		teardown(&run);
		return ret > 0 ? 0 : STK_EXIT_USAGE;
	}
	if (setup(&run)) {
		teardown(&run);
		return STK_EXIT_USAGE;
	}
	if (run.cfg.common.verbose)
		fprintf(stderr, "offcputime: tracing %.1f ms after start\n",
			(double)(stk_now_ns(CLOCK_MONOTONIC) - entered) / 1e6);
	if (run.cfg.common.format == STK_FORMAT_TEXT && !run.cfg.common.n_outputs)
		print_header(&run.cfg);
	int64_t start_wall = stk_now_ns(CLOCK_REALTIME), start_mono = stk_now_ns(CLOCK_MONOTONIC);
	enum stk_run_event ev = stk_run_loop_wait(run.loop);
	/* Stop tracing before reading, so totals and the still-off-CPU set are one snapshot. */
	stk_sched_detach(run.attachment);
	int64_t end_mono = stk_now_ns(CLOCK_MONOTONIC);
	stk_process_watch_drain(run.processes);
	if (ev == STK_RUN_ERROR)
		stk_error(APPLET, "waiting failed: %s; printing what was collected", strerror(errno));
	report_losses(&run);
	ret = print_results(&run, start_wall, start_mono, end_mono) ? 1 : 0;
	teardown(&run);
	return ret;
}
