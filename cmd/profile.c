/*
 * stk profile: where do threads spend CPU? Samples kernel and user stacks
 * on every CPU at a fixed rate (perf_event + bpf_get_stackid), counts unique
 * stacks in the kernel, and symbolizes them at the end. Options and output
 * follow bcc's profile.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "bpf/profile.h"
#include "core/attach/attach_perf.h"
#include "core/bpf/bpf_object.h"
#include "core/btf/btf_source.h"
#include "core/session/capture.h"
#include "core/base/cpus.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/output/output.h"
#include "core/bpf/process_watch.h"
#include "core/base/run_loop.h"
#include "core/stack/stack_opts.h"
#include "core/session/stack_resolve.h"
#include "core/sym/symbolize.h"
#include "core/base/sysfs_read.h"

#define APPLET "profile"
#define DEFAULT_HZ 49
#define DEFAULT_STACK_STORAGE 16384
#define DEFAULT_COUNTS_SIZE 40960

struct profile_config {
	struct stk_stack_opts common; /* -p -L -U -K -d -f -o ... shared with the other stack applets */
	bool annotate, include_idle;
	bool freq_given, count_given;
	struct stk_sampling sampling;
	long cpu; /* -1: all online CPUs */
	const char *cgroup_path;
};

static void print_help(void)
{
	printf("usage: stk profile [options] [duration]\n\n"
	       "Samples stack traces on all CPUs at a timed interval and counts them.\n"
	       "duration: seconds to sample (default: until Ctrl-C or SIGTERM).\n\n"
	       "  -p, --pid PID[,PID...]      only these processes (as seen from this PID namespace)\n"
	       "  -L, --tid TID[,TID...]      only these threads; stacks are kept per thread\n"
	       "  -U, --user-stacks-only      only user stacks\n"
	       "  -K, --kernel-stacks-only    only kernel stacks\n"
	       "  -F, --frequency HZ          sample at HZ per CPU (default %d)\n"
	       "  -c, --count N               sample once every N ns of CPU clock instead\n"
	       "  -d, --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"
	       "  -a, --annotations           add _[k] to kernel frames (folded, svg)\n"
	       "  -I, --include-idle          include the idle task (pid 0)\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n"
	       "  -C, --cpu CPU               only sample this CPU\n"
	       "      --cgroup PATH           only tasks in this cgroup v2 directory (and below)\n"
	       "      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       "  -o, --output FILE           write there; format from --format or the extension\n"
	       "                              (.txt .folded .pmp .pb.gz .svg); may be repeated\n"
	       "      --format FMT            text, folded, pmp, pprof or svg\n"
	       "      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               address and module for every frame; mechanism and losses\n"
	       "  -h, --help                  this help\n",
	       DEFAULT_HZ, DEFAULT_STACK_STORAGE);
}

enum profile_long_opt {
	OPT_CGROUP = STK_OPT_APPLET,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

static int parse_args(int argc, char **argv, struct profile_config *cfg)
{
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('L'),
		{ "frequency", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "annotations", no_argument, NULL, 'a' },
		{ "include-idle", no_argument, NULL, 'I' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ 0 },
	};
	long max_rate = 100000, max_stack = 127;
	char msg[512];
	uint64_t v;
	int c, taken;

	stk_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate);
	stk_read_long("/proc/sys/kernel/perf_event_max_stack", &max_stack);
	stk_stack_opts_init(&cfg->common, 'L', DEFAULT_STACK_STORAGE, (uint64_t)max_stack);
	cfg->sampling.value = DEFAULT_HZ;
	cfg->cpu = -1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":" STK_STACK_SHORTOPTS "L:F:c:aIC:", longopts, NULL)) != -1) {
		taken = stk_stack_opt(&cfg->common, c, optarg, msg, sizeof(msg));
		if (taken < 0)
			return usage_error("%s", msg);
		if (taken)
			continue;
		switch (c) {
		case 'F':
			if (stk_parse_u64(optarg, 1, (uint64_t)max_rate, &cfg->sampling.value)) {
				snprintf(msg, sizeof(msg), "-F %%s: frequency must be a whole number from 1 to %ld "
					 "(kernel.perf_event_max_sample_rate)", max_rate);
				return usage_error(msg, optarg);
			}
			cfg->freq_given = true;
			break;
		case 'c':
			if (stk_parse_u64(optarg, 1, UINT64_MAX >> 1, &cfg->sampling.value))
				return usage_error("-c %s: count must be a positive whole number", optarg);
			cfg->sampling.by_period = true;
			cfg->count_given = true;
			break;
		case 'a': cfg->annotate = true; break;
		case 'I': cfg->include_idle = true; break;
		case 'C':
			if (stk_parse_u64(optarg, 0, 65535, &v))
				return usage_error("-C %s: expected a CPU number", optarg);
			cfg->cpu = (long)v;
			break;
		case OPT_CGROUP: cfg->cgroup_path = optarg; break;
		case 'h': print_help(); return 1;
		case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s' (see 'stk profile --help')", argv[optind - 1]);
		}
	}
	if (cfg->freq_given && cfg->count_given)
		return usage_error("-F and -c are mutually exclusive%s", "");
	if (stk_stack_opts_finish(&cfg->common, argc, argv, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* Everything the capture owns, released in one place. */
struct profile_run {
	struct profile_config cfg;
	struct stk_bpf *skel;
	struct stk_perf_attachment *attachment;
	struct stk_process_watch *processes;
	struct stk_symbolizer *sym;
	struct stk_run_loop *loop;
	int *cpus;
	size_t n_cpus;
	int cgroup_fd;
	int empty_btf_fd; /* kernels without BTF: see stk_bpf_empty_btf() */
	struct stk_btf_source btf;
	FILE *outs[STK_MAX_OUTPUTS];
};

static const char *const profile_programs[] = { "stk_profile_sample", NULL };
static const char *const profile_maps[] = {
	"profile_config", "profile_pids", "profile_tids", "profile_cgroup", "profile_stacks",
	"profile_counts", "profile_stats", "profile_seen", "profile_new_process", NULL,
};

static int size_maps(struct profile_run *run)
{
	struct stk_bpf *s = run->skel;
	const struct profile_config *cfg = &run->cfg;

	if (bpf_map__set_max_entries(s->maps.profile_stacks, (uint32_t)cfg->common.stack_storage_size) ||
	    bpf_map__set_value_size(s->maps.profile_stacks, (uint32_t)(cfg->common.max_depth * sizeof(uint64_t))) ||
	    bpf_map__set_max_entries(s->maps.profile_counts, DEFAULT_COUNTS_SIZE) ||
	    bpf_map__set_max_entries(s->maps.profile_pids, cfg->common.n_pids ? (uint32_t)cfg->common.n_pids : 1) ||
	    bpf_map__set_max_entries(s->maps.profile_tids, cfg->common.n_tids ? (uint32_t)cfg->common.n_tids : 1))
		return -1;
	return 0;
}

static int write_filters(struct profile_run *run)
{
	struct stk_bpf *s = run->skel;
	const struct profile_config *cfg = &run->cfg;
	struct stk_profile_config bc = {
		.filter_pids = cfg->common.n_pids > 0,
		.filter_tids = cfg->common.n_tids > 0,
		.filter_cgroup = cfg->cgroup_path != NULL,
		.include_idle = cfg->include_idle,
		.kernel_stacks = !cfg->common.user_only,
		.user_stacks = !cfg->common.kernel_only,
		.per_thread = cfg->common.n_tids > 0,
	};
	uint32_t zero = 0;
	uint8_t one = 1;

	for (size_t i = 0; i < cfg->common.n_pids; i++)
		if (bpf_map__update_elem(s->maps.profile_pids, &cfg->common.pids[i], sizeof(uint32_t), &one, 1, 0))
			return -1;
	for (size_t i = 0; i < cfg->common.n_tids; i++)
		if (bpf_map__update_elem(s->maps.profile_tids, &cfg->common.tids[i], sizeof(uint32_t), &one, 1, 0))
			return -1;
	if (cfg->cgroup_path &&
	    bpf_map__update_elem(s->maps.profile_cgroup, &zero, sizeof(zero), &run->cgroup_fd,
				 sizeof(run->cgroup_fd), 0))
		return -1;
	return bpf_map__update_elem(s->maps.profile_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

static int select_cpus(struct profile_run *run)
{
	if (stk_cpus_online(&run->cpus, &run->n_cpus)) {
		stk_error(APPLET, "cannot read the online CPUs from /sys/devices/system/cpu/online");
		return -1;
	}
	if (run->cfg.cpu >= 0) {
		for (size_t i = 0; i < run->n_cpus; i++) {
			if (run->cpus[i] == run->cfg.cpu) {
				run->cpus[0] = (int)run->cfg.cpu;
				run->n_cpus = 1;
				return 0;
			}
		}
		stk_error(APPLET, "-C %ld: no such online CPU", run->cfg.cpu);
		return -1;
	}
	return 0;
}

static uint64_t sum_stat(struct stk_bpf *s, uint32_t slot)
{
	return stk_percpu_sum(s->maps.profile_stats, slot);
}

static void report_losses(struct profile_run *run)
{
	struct stk_bpf *s = run->skel;
	struct stk_losses l = {
		.collisions = sum_stat(s, STK_PROFILE_STAT_KSTACK_COLLISION) +
			      sum_stat(s, STK_PROFILE_STAT_USTACK_COLLISION),
		.stack_map_full = sum_stat(s, STK_PROFILE_STAT_KSTACK_FULL) +
				  sum_stat(s, STK_PROFILE_STAT_USTACK_FULL),
		.counts_full = sum_stat(s, STK_PROFILE_STAT_COUNTS_FULL),
		.new_process_lost = sum_stat(s, STK_PROFILE_STAT_NEW_PROCESS_LOST),
		.stack_storage_size = run->cfg.common.stack_storage_size,
		.counts_size = DEFAULT_COUNTS_SIZE,
		.unit = "samples",
	};

	stk_report_losses(&l);
	if (run->cfg.common.verbose)
		stk_print_symbolizer_stats(APPLET, run->sym);
}

struct collect_ctx {
	struct profile_run *run;
	struct stk_stack_list *list;
};

static int add_counted(void *ctx, const void *key_bytes, uint64_t count)
{
	const struct collect_ctx *cc = ctx;
	const struct stk_profile_key *key = key_bytes;
	const struct stk_stack_opts *o = &cc->run->cfg.common;
	const struct stk_counted_key counted = {
		.tgid = key->tgid, .tid = key->tid, .comm = key->comm, .kernel_stack_id = key->kernel_stack_id,
		.user_stack_id = key->user_stack_id, .value = count,
	};

	return stk_stack_list_add_key(cc->list, &counted, bpf_map__fd(cc->run->skel->maps.profile_stacks),
				      cc->run->sym, (uint32_t)o->max_depth, o->user_only, o->kernel_only) ? 0 : -1;
}

static int collect(struct profile_run *run, struct stk_stack_list *c)
{
	struct collect_ctx cc = { run, c };

	return stk_percpu_counts_each(bpf_map__fd(run->skel->maps.profile_counts), sizeof(struct stk_profile_key),
				      add_counted, &cc);
}

static int print_results(struct profile_run *run, int64_t start_wall, int64_t start_mono)
{
	const struct profile_config *cfg = &run->cfg;
	struct stk_stack_list c = { 0 };
	char title[128];
	int ret = 0;
	int64_t resolve_start = stk_now_ns(CLOCK_MONOTONIC);

	char why[256];
	/* Checked here, not at start: reading kallsyms would delay the first sample. */
	if (!cfg->common.user_only && stk_symbolizer_kernel_status(run->sym, why, sizeof(why)) != 1)
		fprintf(stderr, "WARNING: kernel frames are [unknown]: %s\n", why);
	if (collect(run, &c)) {
		stk_error(APPLET, "out of memory while reading the counts");
		stk_stack_list_free(&c);
		return -1;
	}
	if (cfg->sampling.by_period)
		snprintf(title, sizeof(title), "stk profile -c %llu", (unsigned long long)cfg->sampling.value);
	else
		snprintf(title, sizeof(title), "stk profile -F %llu", (unsigned long long)cfg->sampling.value);
	struct stk_report report = {
		.stacks = c.stacks,
		.n_stacks = c.n,
		.value_type = "samples",
		.value_unit = "count",
		.period_type = "cpu",
		.period_unit = "nanoseconds",
		.period = cfg->sampling.by_period ? (int64_t)cfg->sampling.value
						  : (int64_t)(1000000000ULL / cfg->sampling.value),
		.time_nanos = start_wall,
		.duration_nanos = stk_now_ns(CLOCK_MONOTONIC) - start_mono,
		.title = title,
	};
	struct stk_output_opts opts = {
		.format = cfg->common.format,
		.delimiter = cfg->common.delimiter,
		.annotate = cfg->annotate,
		.verbose = cfg->common.verbose,
		.lines = cfg->common.lines,
		.show_tid = cfg->common.n_tids > 0,
	};
	ret = stk_write_outputs(APPLET, run->outs, cfg->common.output_paths, cfg->common.output_formats, cfg->common.n_outputs,
				&report, &opts);
	if (cfg->common.verbose)
		fprintf(stderr, "profile: resolved and printed %zu stacks in %.1f ms\n", c.n,
			(double)(stk_now_ns(CLOCK_MONOTONIC) - resolve_start) / 1e6);
	stk_stack_list_free(&c);
	return ret;
}

static void print_header(const struct profile_config *cfg)
{
	const char *who = cfg->common.n_pids ? "the given processes" : cfg->common.n_tids ? "the given threads"
								    : "all threads";
	const char *which = cfg->common.user_only ? "user" : cfg->common.kernel_only ? "kernel" : "user + kernel";

	if (cfg->sampling.by_period)
		printf("Sampling every %llu ns of CPU time", (unsigned long long)cfg->sampling.value);
	else
		printf("Sampling at %llu Hertz", (unsigned long long)cfg->sampling.value);
	printf(" of %s by %s stack", who, which);
	if (cfg->common.duration_ms)
		printf(" for %.3g secs.\n", (double)cfg->common.duration_ms / 1000.0);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}

static int setup(struct profile_run *run)
{
	struct profile_config *cfg = &run->cfg;
	char err[512];
	struct stk_btf_source *btf = &run->btf;

	if (stk_capture_prepare(APPLET, cfg->common.verbose, cfg->common.btf_file, btf))
		return -1;
	if (select_cpus(run))
		return -1;
	if (cfg->cgroup_path) {
		run->cgroup_fd = open(cfg->cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (run->cgroup_fd < 0) {
			stk_error(APPLET, "--cgroup %s: %s", cfg->cgroup_path, strerror(errno));
			return -1;
		}
	}
	if (stk_open_outputs(APPLET, cfg->common.output_paths, cfg->common.n_outputs, run->outs))
		return -1;
	run->sym = stk_symbolizer_for(APPLET, &cfg->common, cfg->common.pids, cfg->common.n_pids);
	if (!run->sym)
		return -1;

	struct stk_bpf_selection sel = {
		.programs = profile_programs, .maps = profile_maps, .btf_custom_path = stk_btf_custom_path(btf),
	};
	char empty_btf[64];
	if (btf->kind == STK_BTF_NONE) {
		run->empty_btf_fd = stk_bpf_empty_btf(empty_btf, sizeof(empty_btf));
		if (run->empty_btf_fd >= 0)
			sel.btf_custom_path = empty_btf;
	}
	run->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!run->skel) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (size_maps(run) || stk_bpf__load(run->skel)) {
		stk_error(APPLET, "loading the BPF program failed: %s (run with -v for libbpf's log)",
			  strerror(errno));
		return -1;
	}
	if (write_filters(run)) {
		stk_error(APPLET, "writing filters into BPF maps failed: %s", strerror(errno));
		return -1;
	}
	run->loop = stk_run_loop_new(cfg->common.duration_ms, 0, err, sizeof(err));
	if (!run->loop) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->processes = stk_process_watch_start(APPLET, run->skel->maps.profile_new_process, run->sym, run->loop);
	if (!run->processes)
		return -1;
	size_t attached = 0;
	run->attachment = stk_attach_cpu_sampling(run->skel->progs.stk_profile_sample, run->cpus, run->n_cpus,
						  &cfg->sampling, &attached, err, sizeof(err));
	if (!run->attachment) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (cfg->common.verbose)
		fprintf(stderr, "profile: mechanism perf_event (software cpu-clock, %s %llu) on %zu of %zu CPUs; "
			"BTF %s\n", cfg->sampling.by_period ? "period" : "Hz",
			(unsigned long long)cfg->sampling.value, attached, run->n_cpus, stk_btf_kind_name(btf->kind));
	return 0;
}

static void teardown(struct profile_run *run)
{
	stk_perf_attachment_destroy(run->attachment);
	stk_process_watch_free(run->processes);
	stk_run_loop_free(run->loop);
	stk_bpf__destroy(run->skel);
	if (run->sym)
		stk_symbolizer_free(run->sym);
	if (run->cgroup_fd >= 0)
		close(run->cgroup_fd);
	if (run->empty_btf_fd >= 0)
		close(run->empty_btf_fd);
	stk_btf_source_release(&run->btf);
	for (size_t i = 0; i < STK_MAX_OUTPUTS; i++)
		if (run->outs[i])
			fclose(run->outs[i]);
	free(run->cpus);
	stk_stack_opts_free(&run->cfg.common);
}

int profile_main(int argc, char **argv)
{
	struct profile_run run = { .cgroup_fd = -1, .empty_btf_fd = -1 };
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
		fprintf(stderr, "profile: sampling %.1f ms after start\n",
			(double)(stk_now_ns(CLOCK_MONOTONIC) - entered) / 1e6);
	if (run.cfg.common.format == STK_FORMAT_TEXT && !run.cfg.common.n_outputs)
		print_header(&run.cfg);
	int64_t start_wall = stk_now_ns(CLOCK_REALTIME), start_mono = stk_now_ns(CLOCK_MONOTONIC);
	enum stk_run_event ev = stk_run_loop_wait(run.loop);
	/* Stop sampling before reading, so the counts are a consistent snapshot. */
	stk_perf_attachment_destroy(run.attachment);
	run.attachment = NULL;
	stk_process_watch_drain(run.processes);
	if (ev == STK_RUN_ERROR)
		stk_error(APPLET, "waiting failed: %s; printing what was collected", strerror(errno));
	report_losses(&run);
	ret = print_results(&run, start_wall, start_mono) ? 1 : 0;
	teardown(&run);
	return ret;
}
