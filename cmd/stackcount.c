/*
 * stk stackcount: how often each stack reaches a kernel function,
 * tracepoint, user function or USDT probe. Patterns and options follow
 * bcc's stackcount (core/probe/probe_pattern.h); core/kernel_match and
 * core/user_probe find what a pattern names, core/attach_kfunc,
 * attach_tracepoint and attach_uprobe choose the mechanism and attach, and
 * the counts go through core/capture like the other stack applets.
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
#include "bpf/event_types.h"
#include "bpf/stackcount_types.h"
#include "core/attach/attach_kfunc.h"
#include "core/ladder/ladder.h"
#include "core/attach/attach_tracepoint.h"
#include "core/attach/attach_uprobe.h"
#include "core/bpf/bpf_object.h"
#include "core/btf/btf_source.h"
#include "core/base/clock.h"
#include "core/bpf/percpu_maps.h"
#include "core/bpf/unwind_maps.h"
#include "core/session/applet.h"
#include "core/session/dwarf_samples.h"
#include "core/session/event_sink.h"
#include "core/session/session.h"
#include "core/session/stack_maps.h"
#include "core/probe/kernel_match.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/pidns.h"
#include "core/output/output.h"
#include "core/probe/probe_pattern.h"
#include "core/stack/stack_trim.h"
#include "core/sym/symbolize.h"
#include "core/options/stack_opts.h"
#include "core/base/sysfs_read.h"
#include "core/base/tracefs.h"
#include "core/probe/usdt_notes.h"
#include "core/probe/user_probe.h"
#include "core/base/dispatch.h"

#define APPLET "stackcount"
#define DEFAULT_STACK_STORAGE 16384
#define DEFAULT_COUNTS_SIZE 40960
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
	       DEFAULT_STACK_STORAGE, DEFAULT_MAX_PROBES, STK_KFUNC_FENTRY_MAX_DEFAULT);
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

static enum stk_attach_class attach_class(enum stk_probe_kind kind)
{
	switch (kind) {
	case STK_PROBE_KERNEL_FUNCTION: return STK_ATTACH_KERNEL_FUNCTION;
	case STK_PROBE_USER_FUNCTION: return STK_ATTACH_USER_FUNCTION;
	case STK_PROBE_TRACEPOINT: return STK_ATTACH_TRACEPOINT;
	case STK_PROBE_USDT: break;
	}
	return STK_ATTACH_USDT;
}

static int check_mechanism(const struct sc_config *cfg)
{
	enum stk_attach_class cls = attach_class(cfg->pattern.kind);
	char names[128];

	if (!cfg->mechanism || stk_rung_by_name(cls, cfg->mechanism))
		return 0;
	stk_ladder_names(cls, names, sizeof(names));
	return usage_error("--mechanism %s: %ss use %s", cfg->mechanism, stk_ladder_for(cls)->name, names);
}

static int check_args(struct sc_config *cfg, int argc, char **argv)
{
	char msg[512];

	/* the pattern is the one operand: no trailing duration (that is -D) */
	if (stk_stack_opts_finish(&cfg->common, argc, argv, argc, msg, sizeof(msg)))
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

/* Everything the capture owns, released in one place. */
struct sc_run {
	struct sc_config cfg;
	struct stk_name_match match, category;
	bool match_ready, category_ready;
	struct stk_name_list targets, untraceable; /* kernel functions, tracepoints, USDT probes */
	struct stk_user_func_list funcs;           /* user functions */
	struct stk_user_file file;
	struct stk_probe_set probes;
	struct stk_session session;
};

static int parse_args(void *run, int argc, char **argv)
{
	struct sc_config *cfg = &((struct sc_run *)run)->cfg;
	/* The shared table minus "tid" (no thread option) and "delimited" (here -d is the plan). */
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "folded", no_argument, NULL, 'f' },
		{ "stack-storage-size", required_argument, NULL, STK_OPT_STACK_STORAGE },
		{ "perf-max-stack-depth", required_argument, NULL, STK_OPT_MAX_DEPTH },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, STK_OPT_FORMAT },
		{ "no-args", no_argument, NULL, STK_OPT_NO_ARGS },
		{ "btf", required_argument, NULL, STK_OPT_BTF },
		STK_UNWIND_LONGOPTS,
		STK_SYMBOL_LONGOPTS,
		STK_EVENT_LONGOPTS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
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
	stk_stack_opts_begin(&cfg->common, '\x01', DEFAULT_STACK_STORAGE);
	cfg->max_probes = DEFAULT_MAX_PROBES;
	cfg->fentry_max = STK_KFUNC_FENTRY_MAX_DEFAULT;
	cfg->cpu = -1;
	cfg->mechanism = getenv(MECHANISM_ENV);
	if (cfg->mechanism && !*cfg->mechanism)
		cfg->mechanism = NULL;

	/* -d is the attach plan here, not the shared "delimited" */
	while ((c = stk_stack_getopt(&cfg->common, argc, argv, ":p:UKfo:vhc:i:TD:rsPd", longopts, "d", msg,
				     sizeof(msg))) != -1) {
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
		case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s' (see 'stk stackcount --help')", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("missing PATTERN (see 'stk stackcount --help')%s", "");
	cfg->pattern_text = argv[optind];
	if (optind + 1 < argc)
		return usage_error("unexpected argument '%s' (one PATTERN per run)", argv[optind + 1]);
	return check_args(cfg, argc, argv);
}

static size_t target_count(const struct sc_run *run)
{
	return run->cfg.pattern.kind == STK_PROBE_USER_FUNCTION ? run->funcs.n : run->targets.n;
}

static const char *target_name(const struct sc_run *run, size_t i)
{
	return run->cfg.pattern.kind == STK_PROBE_USER_FUNCTION ? run->funcs.funcs[i].name : run->targets.names[i];
}

/* "a b c (+N more)" into buf. */
static void list_names(char *buf, size_t len, char *const *names, size_t n, size_t shown)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < shown && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", names[i]);
	if (n > shown && used < len)
		snprintf(buf + used, len - used, " (+%zu more)", n - shown);
}

static FILE *open_tracefs(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	if ((f = fopen(path, "re")))
		return f;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/%s", name);
	return fopen(path, "re");
}

static int find_kernel_functions(struct sc_run *run)
{
	const char *how;
	char err[512];
	/* Where tracefs cannot be mounted, kallsyms alone still names the functions. */
	bool tracefs = stk_tracefs_ensure(&how, err, sizeof(err)) == 0;
	struct stk_kfunc_sources src = {
		.traceable = tracefs ? open_tracefs("available_filter_functions") : NULL,
		.kallsyms = fopen("/proc/kallsyms", "re"),
		.blacklist = fopen("/sys/kernel/debug/kprobes/blacklist", "re"),
	};
	int ret = stk_match_kernel_functions(&src, &run->match, &run->targets, &run->untraceable);

	if (src.traceable)
		fclose(src.traceable);
	if (src.kallsyms)
		fclose(src.kallsyms);
	if (src.blacklist)
		fclose(src.blacklist);
	if (ret) {
		stk_error(APPLET, "cannot read the kernel's functions (/proc/kallsyms, available_filter_functions)");
		return -1;
	}
	if (run->targets.n == 0) {
		char names[1024];
		if (run->untraceable.n) {
			list_names(names, sizeof(names), run->untraceable.names, run->untraceable.n, LIST_SHOWN);
			stk_error(APPLET, "'%s' matches only functions that cannot be traced (notrace or blacklisted): %s",
				  run->cfg.pattern.name, names);
		} else {
			stk_error(APPLET, "no kernel function matches '%s' (unknown, or inlined away)",
				  run->cfg.pattern.name);
		}
		return -1;
	}
	return 0;
}

static int find_tracepoints(struct sc_run *run)
{
	const char *how;
	char err[512];
	FILE *f;

	if (stk_tracefs_ensure(&how, err, sizeof(err))) {
		stk_error(APPLET, "tracepoints need tracefs: %s", err);
		return -1;
	}
	if (!(f = open_tracefs("available_events"))) {
		stk_error(APPLET, "cannot read tracefs available_events: %s", strerror(errno));
		return -1;
	}
	int ret = stk_match_tracepoints(f, &run->category, &run->match, &run->targets);
	fclose(f);
	if (ret == 0 && run->targets.n == 0) {
		stk_error(APPLET, "unknown tracepoint '%s:%s' (none in available_events matches)",
			  run->cfg.pattern.category, run->cfg.pattern.name);
		return -1;
	}
	return ret;
}

static int find_user_functions(struct sc_run *run)
{
	char err[1024];

	if (stk_user_file_resolve(run->cfg.pattern.lib, (pid_t)run->cfg.pid, &run->file, err, sizeof(err)) ||
	    stk_user_functions(run->file.path, &run->match, &run->funcs, err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (run->funcs.n == 0) {
		stk_error(APPLET, "no function matches '%s' in %s", run->cfg.pattern.name, run->file.display);
		return -1;
	}
	return 0;
}

static int find_usdt_probes(struct sc_run *run)
{
	char err[1024];

	if (stk_user_file_resolve(run->cfg.pattern.lib, (pid_t)run->cfg.pid, &run->file, err, sizeof(err)) ||
	    stk_usdt_probes(run->file.path, run->category_ready ? &run->category : NULL, &run->match, &run->targets,
			    err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (run->targets.n == 0) {
		stk_error(APPLET, "USDT probe '%s' not found in %s", run->cfg.pattern.name, run->file.display);
		return -1;
	}
	return 0;
}

/* Fills run->targets / run->funcs from the pattern. 0, or -1 after a one-line error. */
static int find_targets(struct sc_run *run)
{
	struct sc_config *cfg = &run->cfg;
	const struct stk_probe_pattern *p = &cfg->pattern;
	char err[640];
	int ret = -1;

	if (stk_name_match_init(&run->match, p->name, cfg->regex, err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->match_ready = true;
	if (p->category[0]) {
		if (stk_name_match_init(&run->category, p->category, false, err, sizeof(err))) {
			stk_error(APPLET, "%s", err);
			return -1;
		}
		run->category_ready = true;
	}
	switch (p->kind) {
	case STK_PROBE_KERNEL_FUNCTION: ret = find_kernel_functions(run); break;
	case STK_PROBE_TRACEPOINT: ret = find_tracepoints(run); break;
	case STK_PROBE_USER_FUNCTION: ret = find_user_functions(run); break;
	case STK_PROBE_USDT: ret = find_usdt_probes(run); break;
	}
	if (ret)
		return -1;
	if (target_count(run) > cfg->max_probes) {
		char msg[256];
		snprintf(msg, sizeof(msg), "'%%s' matches %zu %ss, more than the limit of %llu (raise it with "
			 "--max-probes N)", target_count(run), stk_probe_kind_name(p->kind),
			 (unsigned long long)cfg->max_probes);
		return usage_error(msg, cfg->pattern_text);
	}
	return 0;
}

static const char *const sc_maps[] = {
	"sc_config", "sc_stacks", "sc_counts", "sc_stats", "sc_seen", "sc_new_process", NULL,
};
/* libbpf's USDT support keeps its specs in these (bpf/usdt.bpf.h). */
static const char *const sc_usdt_maps[] = {
	"sc_config", "sc_stacks", "sc_counts", "sc_stats", "sc_seen", "sc_new_process",
	"__bpf_usdt_specs", "__bpf_usdt_ip_to_spec_id", "stk_bpf.kconfig", NULL,
};
static const char *const sc_dwarf_maps[] = {
	"sc_config", "sc_scratch", "sc_samples", "sc_sent", "sc_stacks", "sc_counts", "sc_stats", "sc_seen",
	"sc_new_process", NULL,
};
static const char *const sc_dwarf_usdt_maps[] = {
	"sc_config", "sc_scratch", "sc_samples", "sc_sent", "sc_stacks", "sc_counts", "sc_stats", "sc_seen",
	"sc_new_process",
	"__bpf_usdt_specs", "__bpf_usdt_ip_to_spec_id", "stk_bpf.kconfig", NULL,
};

static int size_maps(struct stk_bpf *s, void *ctx)
{
	struct sc_run *run = ctx;
	const struct stk_stack_maps maps = {
		.stacks = s->maps.sc_stacks, .counts = s->maps.sc_counts, .counts_size = DEFAULT_COUNTS_SIZE,
		.scratch = s->maps.sc_scratch,
	};

	if (stk_stack_maps_size(&maps, &run->cfg.common) || stk_session_size_event_maps(&run->session, s))
		return -1;
	return run->session.unwind.rung == STK_UNWIND_CFI ? stk_session_size_unwind_maps(&run->session, s) : 0;
}

static struct stk_stack *resolve_event(void *ctx, struct stk_stack_list *l, const struct stk_event *e);

static int write_config(struct stk_bpf *s, void *ctx)
{
	const struct sc_config *cfg = &((struct sc_run *)ctx)->cfg;
	struct stk_sc_config bc = {
		.filter_pid = cfg->pid != 0,
		.pid = cfg->pid,
		.filter_cpu = cfg->cpu >= 0,
		.cpu = cfg->cpu >= 0 ? (uint32_t)cfg->cpu : 0,
		.kernel_stacks = !cfg->common.user_only,
		.user_stacks = !cfg->common.kernel_only,
		/* user stacks resolve in their process, and folded output names the command */
		.keep_tgid = 1,
		.stack_bytes = cfg->common.stack_bytes,
		.self_tgid = stk_pidns_is_host() ? (uint32_t)getpid() : 0,
		.max_depth = stk_unwind_chain_depth(cfg->common.max_depth),
		.events = stk_session_event_flags(&((struct sc_run *)ctx)->session),
	};
	struct stk_session *session = &((struct sc_run *)ctx)->session;
	enum stk_unwind_rung rung = session->unwind.rung;
	uint32_t zero = 0;

	/* The sample reader and tables exist before the first event (a retried mechanism brings new ones). */
	if (rung != STK_UNWIND_FP && stk_session_dwarf(session, s->maps.sc_samples, true))
		return -1;
	if (rung == STK_UNWIND_CFI && stk_session_kernel_unwind(session, s))
		return -1;
	const struct stk_event_source events = {
		.event = cfg->pattern_text, .unit = "count", .resolve = resolve_event, .ctx = ctx, .divisor = 1,
	};
	if (stk_session_events(session, s, &events))
		return -1;
	return bpf_map__update_elem(s->maps.sc_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

/* How far down a kernel-function stack its traced function may sit (below trampoline frames). */
#define TARGET_FRAME_DEPTH 4

/*
 * Kernel frames start at the probed code, not in the tracing code that took
 * them. A kernel function's own frame is the first one: fentry stacks begin
 * in the trampoline, whose address kallsyms may not name (it then resolves
 * to whatever symbol precedes it), so frames above the traced function go.
 */
static void trim_kernel(const struct sc_run *run, struct stk_stack *st)
{
	struct stk_frame *f = (struct stk_frame *)st->kernel;
	size_t skip = f ? stk_tracing_prefix(f, st->n_kernel) : 0;

	if (f && run->cfg.pattern.kind == STK_PROBE_KERNEL_FUNCTION) {
		for (size_t i = 0; i < st->n_kernel && i < TARGET_FRAME_DEPTH; i++) {
			if (f[i].symbol && stk_name_list_contains(&run->targets, f[i].symbol)) {
				skip = i;
				break;
			}
		}
	}

	if (skip) {
		memmove(f, f + skip, (st->n_kernel - skip) * sizeof(*f));
		st->n_kernel -= skip;
	}
}

/* The stacks counted under key, appended to c. NULL when out of memory. */
static struct stk_stack *stack_for(struct sc_run *run, struct stk_stack_list *c, const struct stk_sc_key *key,
				   uint64_t count)
{
	const struct stk_counted_key k = {
		.tgid = key->tgid, .comm = key->comm, .kernel_stack_id = key->kernel_stack_id,
		.user_stack_id = key->user_stack_id, .kernel_chain = key->kernel_chain, .user_chain = key->user_chain,
		.value = count,
	};
	struct stk_stack_source src = stk_session_stack_source(&run->session,
							       bpf_map__fd(run->probes.skel->maps.sc_stacks));
	/* copies count by content hash, except hits whose sample had no room in the buffer (frame pointers) */
	struct stk_stack *st = run->session.dwarf && key->content_hash
		? stk_dwarf_samples_add(run->session.dwarf, c, key->content_hash, key->tgid, 0, key->comm, count)
		: stk_stack_list_add_key(c, &k, &src);

	if (st)
		trim_kernel(run, st);
	return st;
}

static int add_stack(struct sc_run *run, struct stk_stack_list *c, const struct stk_sc_key *key, uint64_t count)
{
	return stack_for(run, c, key, count) ? 0 : -1;
}

/* An event's stack, as the counts hold the hit counted with the same references. */
static struct stk_stack *resolve_event(void *ctx, struct stk_stack_list *l, const struct stk_event *e)
{
	struct stk_sc_key key = {
		.tgid = e->tgid, .kernel_stack_id = e->kernel_stack_id, .user_stack_id = e->user_stack_id,
		.content_hash = e->content_hash, .kernel_chain = e->kernel_chain, .user_chain = e->user_chain,
	};

	memcpy(key.comm, e->comm, sizeof(key.comm));
	return stack_for(ctx, l, &key, 0);
}

struct collect_ctx {
	struct sc_run *run;
	struct stk_stack_list *list;
};

static int add_counted(void *ctx, const void *key, uint64_t count)
{
	const struct collect_ctx *cc = ctx;

	return add_stack(cc->run, cc->list, key, count);
}

static int collect_counts(struct sc_run *run, struct stk_stack_list *c, bool reset)
{
	int counts_fd = bpf_map__fd(run->probes.skel->maps.sc_counts);
	struct collect_ctx cc = { run, c };
	struct stk_sc_key next;
	int ret = stk_percpu_counts_each(counts_fd, sizeof(struct stk_sc_key), add_counted, &cc);

	/* -i: each interval counts from zero, as bcc's does */
	if (reset)
		while (bpf_map_get_next_key(counts_fd, NULL, &next) == 0 && bpf_map_delete_elem(counts_fd, &next) == 0)
			;
	return ret;
}

static int print_results(struct sc_run *run, bool reset)
{
	const struct sc_config *cfg = &run->cfg;
	struct stk_stack_list c = { 0 };
	int ret;
	char title[600];

	stk_session_begin_results(&run->session);
	if (collect_counts(run, &c, reset)) {
		stk_error(APPLET, "out of memory while reading the counts");
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
	struct stk_report report = { .value_type = "count", .value_unit = "count", .title = title };
	struct stk_output_opts opts = { .symbol_offsets = cfg->offsets, .no_task = !cfg->per_process };
	ret = stk_session_print(&run->session, &c, &report, &opts);
	stk_stack_list_free(&c);
	return ret;
}

static const char *target_noun(const struct sc_run *run)
{
	switch (run->cfg.pattern.kind) {
	case STK_PROBE_TRACEPOINT: return "tracepoints";
	case STK_PROBE_USDT: return "USDT probes";
	default: return "functions";
	}
}

static void print_header(void *arg)
{
	const struct sc_run *run = arg;
	printf("Tracing %zu %s for \"%s\"... Hit Ctrl-C to end.\n", target_count(run), target_noun(run),
	       run->cfg.pattern_text);
	fflush(stdout);
}

/* -d: pattern -> matched names -> mechanism, on stderr so stdout stays data. */
static void print_plan(const struct sc_run *run)
{
	const struct sc_config *cfg = &run->cfg;
	const struct stk_probe_pattern *p = &cfg->pattern;
	size_t n = target_count(run);

	fprintf(stderr, "stackcount: plan for \"%s\": %s %s", cfg->pattern_text, stk_probe_kind_name(p->kind),
		run->match.kind == STK_MATCH_REGEX ? "regex" : run->match.kind == STK_MATCH_GLOB ? "glob" : "name");
	if (p->lib[0])
		fprintf(stderr, " in %s", run->file.display);
	fprintf(stderr, "\nstackcount:   matched %zu:", n);
	for (size_t i = 0; i < n; i++) {
		if (p->kind == STK_PROBE_USER_FUNCTION)
			fprintf(stderr, " %s@0x%llx", target_name(run, i), (unsigned long long)run->funcs.funcs[i].offset);
		else
			fprintf(stderr, " %s", target_name(run, i));
	}
	fputc('\n', stderr);
	if (run->untraceable.n) {
		fprintf(stderr, "stackcount:   cannot be traced (%zu):", run->untraceable.n);
		for (size_t i = 0; i < run->untraceable.n; i++)
			fprintf(stderr, " %s", run->untraceable.names[i]);
		fputc('\n', stderr);
	}
	fprintf(stderr, "stackcount:   mechanism: %s%s%s%s\n", run->probes.mechanism,
		run->probes.tried[0] ? " (passed over: " : "", run->probes.tried, run->probes.tried[0] ? ")" : "");
}

static int attach(struct sc_run *run)
{
	const struct sc_config *cfg = &run->cfg;
	enum stk_unwind_rung rung = run->session.unwind.rung;
	bool copies = rung != STK_UNWIND_FP, usdt = cfg->pattern.kind == STK_PROBE_USDT;
	static const char *const suffix[STK_UNWIND_RUNG_COUNT] = {
		[STK_UNWIND_CFI] = "_cfi", [STK_UNWIND_DWARF] = "_dwarf", [STK_UNWIND_FP] = NULL,
	};
	struct stk_probe_load load = {
		.maps = copies ? (usdt ? sc_dwarf_usdt_maps : sc_dwarf_maps) : usdt ? sc_usdt_maps : sc_maps,
		.extra_maps = stk_session_extra_maps(&run->session),
		.extra_programs = stk_session_extra_programs(&run->session),
		.program_suffix = suffix[rung],
		.btf_custom_path = stk_session_btf_path(&run->session),
		.before_load = size_maps,
		.after_load = write_config,
		.ctx = run,
		.progress = true,
	};
	char err[2048];
	int ret = -1;

	switch (cfg->pattern.kind) {
	case STK_PROBE_KERNEL_FUNCTION: {
		const char *how;
		char tracefs_error[256];
		struct stk_kfunc_request req = {
			.names = run->targets.names,
			.n = run->targets.n,
			.forced = cfg->mechanism,
			.tracefs_error = stk_tracefs_ensure(&how, tracefs_error, sizeof(tracefs_error)) ? tracefs_error : NULL,
			.kernel_btf = stk_session_has_btf(&run->session),
			.fentry_max = cfg->fentry_max,
		};
		ret = stk_kfunc_attach(&run->probes, &load, &req, err, sizeof(err));
		break;
	}
	case STK_PROBE_TRACEPOINT:
		ret = stk_tracepoint_attach(&run->probes, &load, run->targets.names, run->targets.n, cfg->mechanism, err,
					    sizeof(err));
		break;
	case STK_PROBE_USER_FUNCTION:
		ret = stk_uprobe_attach(&run->probes, &load, run->file.path, &run->funcs, (pid_t)cfg->pid, cfg->mechanism,
					err, sizeof(err));
		break;
	case STK_PROBE_USDT:
		ret = stk_usdt_attach(&run->probes, &load, run->file.path, run->targets.names, run->targets.n,
				      (pid_t)cfg->pid, err, sizeof(err));
		break;
	}
	if (ret)
		stk_error(APPLET, "%s", err);
	return ret;
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

	if (stk_session_open(session, APPLET, &cfg->common, &cfg->pid, cfg->pid ? 1 : 0))
		return -1;
	/* Before any thread exists: tracefs may need a private mount namespace. */
	if (find_targets(run))
		return -1;
	if (run->untraceable.n && !cfg->plan) {
		char names[1024];
		list_names(names, sizeof(names), run->untraceable.names, run->untraceable.n, LIST_SHOWN);
		fprintf(stderr, "stackcount: %zu matching functions cannot be traced (notrace or blacklisted): %s\n",
			run->untraceable.n, names);
	}
	if (stk_session_plan_unwind(session, &cfg->common, true, STK_UNWIND_CFI))
		return -1;
	int64_t attach_start = stk_now_ns(CLOCK_MONOTONIC);
	if (attach(run))
		return -1;
	double attach_ms = (double)(stk_now_ns(CLOCK_MONOTONIC) - attach_start) / 1e6;
	if (cfg->plan)
		print_plan(run);
	if (cfg->common.verbose)
		fprintf(stderr, "stackcount: %zu %s attached with %s%s%s%s in %.1f ms (load included); BTF %s; "
			"unwind %s\n", run->probes.n_targets, target_noun(run), run->probes.mechanism,
			run->probes.tried[0] ? " (passed over: " : "", run->probes.tried, run->probes.tried[0] ? ")" : "",
			attach_ms, stk_btf_kind_name(session->btf.kind), stk_unwind_rung_name(session->unwind.rung));
	session->capture = (struct stk_stack_capture){
		.header = print_header, .interval = interval, .detach = detach, .results = results,
		.losses = { .stats = run->probes.skel->maps.sc_stats, .counts_size = DEFAULT_COUNTS_SIZE, .unit = "events" },
	};
	return stk_session_start(session, run->probes.skel->maps.sc_new_process, cfg->interval_ms);
}

static void teardown(void *arg)
{
	struct sc_run *run = arg;
	stk_probe_set_release(&run->probes);
	stk_session_close(&run->session);
	if (run->match_ready)
		stk_name_match_free(&run->match);
	if (run->category_ready)
		stk_name_match_free(&run->category);
	stk_name_list_free(&run->targets);
	stk_name_list_free(&run->untraceable);
	stk_user_func_list_free(&run->funcs);
	stk_stack_opts_free(&run->cfg.common);
}

static int stackcount_main(int argc, char **argv)
{
	static const struct stk_applet_steps steps = {
		.parse = parse_args, .setup = setup, .teardown = teardown, .session_offset = offsetof(struct sc_run, session),
	};
	/* on the heap: large (the matchers and target lists) */
	return stk_applet_run_new(&steps, sizeof(struct sc_run), APPLET, argc, argv);
}

STK_APPLET(stackcount, .name = "stackcount", .summary = "which code paths reach this function, tracepoint or USDT probe?", .main = stackcount_main,
	   .bare_link = true, .rank = 20);
