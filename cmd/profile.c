/*
 * stk profile: where do threads spend CPU? Samples kernel and user stacks
 * on every CPU at a fixed rate (perf_event + bpf_get_stackid), counts unique
 * stacks in the kernel, and symbolizes them at the end. Options and output
 * follow bcc's profile.
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
#include "bpf/profile_types.h"
#include "core/attach/attach_perf.h"
#include "core/base/cpus.h"
#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/sysfs_read.h"
#include "core/bpf/bpf_object.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/session/session.h"

#define APPLET "profile"
#define DEFAULT_HZ 49

struct profile_config {
	struct stk_stack_opts common; /* -p -L -U -K -d -f -o ... shared with the other stack applets */
	bool annotate, include_idle;
	bool freq_given, count_given;
	struct stk_sampling sampling;
	long cpu; /* -1: all online CPUs */
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
	       STK_UNWIND_HELP,
	       DEFAULT_HZ, STK_STACK_STORAGE_DEFAULT);
	stk_output_help(stdout, STK_OFFER_ALL, STK_FORMAT_TEXT);
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       STK_EVENT_HELP
	       "      --btf FILE              kernel BTF to use\n"
	       "  -v, --verbose               address and module for every frame; mechanism and losses\n"
	       "  -h, --help                  this help\n");
}

enum profile_long_opt {
	OPT_CGROUP = STK_OPT_APPLET,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* Everything the capture owns, released in one place. */
struct profile_run {
	struct profile_config cfg;
	struct stk_session session;
	struct stk_bpf *skel;
	struct stk_perf_attachment *attachment;
	int *cpus;
	size_t n_cpus;
};

static int parse_args(void *run, const struct stk_invocation *inv)
{
	struct profile_config *cfg = &((struct profile_run *)run)->cfg;
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
	long max_rate = 100000;
	char msg[512];
	uint64_t v;
	int c;

	stk_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate);
	stk_stack_opts_begin(&cfg->common, APPLET, inv, 'L');
	cfg->sampling.value = DEFAULT_HZ;
	cfg->cpu = -1;
	while ((c = stk_stack_getopt(&cfg->common, ":" STK_STACK_SHORTOPTS "L:F:c:aIC:", longopts, NULL, msg,
				     sizeof(msg))) != -1) {
		switch (c) {
		case STK_OPT_BAD: return usage_error("%s", msg);
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
		case OPT_CGROUP: cfg->common.cgroup_path = optarg; break;
		case 'h': print_help(); return 1;
		}
	}
	if (cfg->freq_given && cfg->count_given)
		return usage_error("-F and -c are mutually exclusive%s", "");
	if (stk_stack_opts_finish(&cfg->common, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* The sampling program (one per rung of user stacks: this name with its suffix). */
#define PROFILE_PROGRAM STK_PROFILE_PROGRAM
/* Its own maps (the stack maps are the session's). */
static const char *const profile_maps[] = STK_PROFILE_MAPS;

static int write_config(struct profile_run *run)
{
	const struct profile_config *cfg = &run->cfg;
	struct stk_bpf *s = run->skel;
	const struct stk_profile_config bc = {
		.stack = stk_session_stack_config(&run->session),
		.include_idle = cfg->include_idle,
	};
	uint32_t zero = 0;

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

static int print_results(void *arg)
{
	struct profile_run *run = arg;
	const struct profile_config *cfg = &run->cfg;
	char title[128];

	if (cfg->sampling.by_period)
		snprintf(title, sizeof(title), "stk profile -c %llu", (unsigned long long)cfg->sampling.value);
	else
		snprintf(title, sizeof(title), "stk profile -F %llu", (unsigned long long)cfg->sampling.value);
	struct stk_report report = {
		.value_type = "samples",
		.value_unit = "count",
		.period_type = "cpu",
		.period_unit = "nanoseconds",
		.period = cfg->sampling.by_period ? (int64_t)cfg->sampling.value
						  : (int64_t)(1000000000ULL / cfg->sampling.value),
		.title = title,
	};
	const struct stk_output_opts opts = { .annotate = cfg->annotate, .show_tid = cfg->common.n_tids > 0 };

	return stk_session_results(&run->session, &report, &opts);
}

static void print_header(void *run)
{
	const struct profile_config *cfg = &((struct profile_run *)run)->cfg;

	if (cfg->sampling.by_period)
		printf("Sampling every %llu ns of CPU time", (unsigned long long)cfg->sampling.value);
	else
		printf("Sampling at %llu Hertz", (unsigned long long)cfg->sampling.value);
	printf(" of %s by %s stack", stk_stack_opts_whose(&cfg->common), stk_stack_opts_which(&cfg->common));
	stk_stack_opts_print_until(&cfg->common);
}

static void detach(void *run)
{
	struct profile_run *r = run;

	stk_perf_attachment_destroy(r->attachment);
	r->attachment = NULL;
}

/* The time one sample stands for. */
static int64_t sample_ns(const struct profile_config *cfg)
{
	return cfg->sampling.by_period ? (int64_t)cfg->sampling.value : (int64_t)(1000000000ULL / cfg->sampling.value);
}

static int setup(void *arg)
{
	struct profile_run *run = arg;
	struct profile_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	const struct stk_event_desc cpu = { .event = "cpu", .unit = "count", .divisor = 1, .sample_ns = sample_ns(cfg) };
	const struct stk_stack_applet profile = {
		.name = APPLET, .counts = true, .unit = "samples", .counts_itself = true,
		.events = { .per_thread = cfg->common.n_tids > 0, .kinds = &cpu, .n_kinds = 1 },
		.header = print_header, .detach = detach, .results = print_results,
	};
	char err[512], what[128];

	if (stk_session_open(session, &profile, &cfg->common, cfg->common.pids, cfg->common.n_pids) ||
	    select_cpus(run) ||
	    stk_session_plan_unwind(session, &cfg->common, false, STK_UNWIND_CFI))
		return -1;
	const char *suffix = stk_unwind_program_suffix(session->unwind.rung);
	char program[64];
	const char *programs[] = { program, NULL };

	snprintf(program, sizeof(program), PROFILE_PROGRAM "%s", suffix ? suffix : "");
	struct stk_bpf_selection sel = {
		.programs = programs,
		.maps = profile_maps,
		.extra_maps = stk_session_extra_maps(session),
		.extra_programs = stk_session_extra_programs(session),
		.btf_custom_path = stk_session_btf_path(session),
	};
	run->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!run->skel) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (stk_session_size_maps(session, run->skel) || stk_bpf__load(run->skel)) {
		stk_error(APPLET, "loading the BPF program failed: %s (run with -v for libbpf's log)", strerror(errno));
		return -1;
	}
	if (stk_session_connect(session, run->skel))
		return -1;
	if (write_config(run)) {
		stk_error(APPLET, "writing filters into BPF maps failed: %s", strerror(errno));
		return -1;
	}
	size_t attached = 0;
	run->attachment = stk_attach_cpu_sampling(bpf_object__find_program_by_name(run->skel->obj, program), run->cpus,
						  run->n_cpus, &cfg->sampling, &attached, err, sizeof(err));
	if (!run->attachment) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	snprintf(what, sizeof(what), "mechanism perf_event (software cpu-clock, %s %llu) on %zu of %zu CPUs",
		 cfg->sampling.by_period ? "period" : "Hz", (unsigned long long)cfg->sampling.value, attached, run->n_cpus);
	stk_session_say_mechanism(session, what, NULL);
	return stk_session_start(session, 0);
}

static int capture(void *run)
{
	return stk_session_capture(&((struct profile_run *)run)->session, run);
}

static void teardown(void *arg)
{
	struct profile_run *run = arg;
	stk_perf_attachment_destroy(run->attachment);
	stk_bpf__destroy(run->skel);
	stk_session_close(&run->session);
	free(run->cpus);
	stk_stack_opts_free(&run->cfg.common);
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = capture, .teardown = teardown,
};

STK_APPLET(profile, .name = "profile", .summary = "where do threads spend CPU? (timed stack sampling)",
	   .steps = &steps, .run_size = sizeof(struct profile_run), .bare_link = true, .rank = 10);
