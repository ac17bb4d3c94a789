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
#include "core/base/pidns.h"
#include "core/base/tracefs.h"
#include "core/bpf/percpu_maps.h"
#include "core/bpf/unwind_maps.h"
#include "core/btf/btf_source.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/resources/kinds.h"
#include "core/resources/marks.h"
#include "core/session/applet.h"
#include "core/session/dwarf_samples.h"
#include "core/session/session.h"
#include "core/session/stack_maps.h"
#include "core/stack/stack_mark.h"
#include "core/stack/stack_trim.h"
#include "core/threads/syscall_table.h"

#define APPLET "resources"
#define DEFAULT_STACK_STORAGE 16384
#define DEFAULT_COUNTS_SIZE 40960
/* A trial of a rung needs its maps to exist, not to hold anything. */
#define PROBE_MAP_SIZE 1

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
	       "  -U, --user-stacks-only      only user stacks\n"
	       "  -K, --kernel-stacks-only    only kernel stacks\n"
	       "  -d, --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n"
	       "      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"
	       "      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"
	       STK_UNWIND_HELP,
	       DEFAULT_STACK_STORAGE);
	stk_output_help(stdout, STK_OFFER_TOTALS, STK_FORMAT_TEXT);
	printf("      --no-args               C++ names without parameter lists\n"
	       STK_SYMBOL_HELP
	       "      --mechanism KIND=M,...  the mechanism of a kind's events instead of the first that works\n"
	       "                              (rss: tp_btf, raw_tp, tracepoint; faults: perf_event, tracepoint;\n"
	       "                              block, block-time, read, write: raw_tp, tracepoint;\n"
	       "                              send, recv: raw_tp, tracepoint, sys_exit)\n"
	       "      --btf FILE              kernel BTF to use\n"
	       "      --list-kinds            print the kinds, one a line, and exit\n"
	       "  -v, --verbose               address and module for every frame; mechanisms and losses\n"
	       "  -h, --help                  this help\n");
}

enum res_long_opt {
	OPT_MECHANISM = STK_OPT_APPLET,
	OPT_LIST_KINDS,
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
	int type_of[STK_RES_KIND_COUNT]; /* kind -> index in types, -1: not reported */
	size_t n_types;
	char title[512];
};

static int parse_args(void *run, int argc, char **argv)
{
	struct res_config *cfg = &((struct res_run *)run)->cfg;
	static const struct option longopts[] = {
		STK_STACK_LONGOPTS('t'),
		{ "event", required_argument, NULL, 'e' },
		{ "mechanism", required_argument, NULL, OPT_MECHANISM },
		{ "list-kinds", no_argument, NULL, OPT_LIST_KINDS },
		{ 0 },
	};
	char msg[512];
	int c;

	stk_stack_opts_begin(&cfg->common, 't', DEFAULT_STACK_STORAGE);
	stk_res_request_init(&cfg->want);
	while ((c = stk_stack_getopt(&cfg->common, argc, argv, ":" STK_STACK_SHORTOPTS "t:e:", longopts, NULL, msg,
				     sizeof(msg))) != -1) {
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
		case OPT_LIST_KINDS:
			for (int k = 0; k < STK_RES_KIND_COUNT; k++)
				printf("%s\n", stk_res_kind((enum stk_res_kind)k)->name);
			return 1;
		case 'h': print_help(); return 1;
		case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s' (see 'stk resources --help')", argv[optind - 1]);
		}
	}
	if (stk_res_request_check(&cfg->want, msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->common.n_pids && cfg->common.n_tids)
		return usage_error("-p and -t are mutually exclusive%s", "");
	if (stk_stack_opts_finish(&cfg->common, argc, argv, optind, msg, sizeof(msg)))
		return usage_error("%s", msg);
	return 0;
}

/* The maps: frame-pointer stacks serve every rung (a copy with no buffer room falls back to them). */
static const char *const res_maps[] = {
	"res_config", "res_pids", "res_tids", "res_stacks", "res_counts", "res_stats", "res_facts", "res_every",
	"res_seen", "res_new_process", "res_scratch", "res_samples", "res_sent", "res_rss_last", "res_block", NULL,
};

/* A rung's trial: every map as small as it can be. */
static int size_for_probe(struct stk_bpf *s)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, s->obj) {
		enum bpf_map_type t = bpf_map__type(map);

		if (!bpf_map__autocreate(map) || t == BPF_MAP_TYPE_PERF_EVENT_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
		    t == BPF_MAP_TYPE_ARRAY)
			continue;
		if (bpf_map__set_max_entries(map, PROBE_MAP_SIZE))
			return -1;
	}
	return 0;
}

static int size_maps(struct stk_bpf *s, bool probe, void *ctx)
{
	struct res_run *run = ctx;
	const struct stk_stack_maps maps = {
		.stacks = s->maps.res_stacks, .counts = s->maps.res_counts, .pids = s->maps.res_pids,
		.tids = s->maps.res_tids, .counts_size = DEFAULT_COUNTS_SIZE, .scratch = s->maps.res_scratch,
	};

	if (probe)
		return size_for_probe(s);
	if (stk_stack_maps_size(&maps, &run->cfg.common))
		return -1;
	return run->session.unwind.rung == STK_UNWIND_CFI ? stk_session_size_unwind_maps(&run->session, s) : 0;
}

/* Whether a source's kinds are counted by the one sys_exit program. */
static bool by_sys_exit(const struct stk_res_attachment *a, enum stk_res_source s)
{
	const struct stk_rung *r = a->chosen[s];

	return r && ((s == STK_RES_SRC_FILES) || r->id == STK_RES_SYS_EXIT);
}

static int write_config(struct stk_bpf *s, const struct stk_res_attachment *a, void *ctx)
{
	struct res_run *run = ctx;
	const struct res_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	struct stk_res_config bc = {
		.filter_pids = cfg->common.n_pids > 0,
		.filter_tids = cfg->common.n_tids > 0,
		.kernel_stacks = !cfg->common.user_only,
		.user_stacks = !cfg->common.kernel_only,
		.per_thread = cfg->common.n_tids > 0,
		.stack_bytes = cfg->common.stack_bytes,
		.self_tgid = stk_pidns_is_host() ? (uint32_t)getpid() : 0,
		.max_depth = stk_unwind_chain_depth(cfg->common.max_depth),
		.fd_types = stk_session_has_btf(session),
		.sockets_by_syscall = a->chosen[STK_RES_SRC_SOCKETS] &&
				      a->chosen[STK_RES_SRC_SOCKETS]->id == STK_RES_SYS_EXIT,
		.off = a->offsets,
	};
	const struct stk_stack_maps maps = { .pids = s->maps.res_pids, .tids = s->maps.res_tids };
	enum stk_unwind_rung rung = session->unwind.rung;
	uint32_t zero = 0;

	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		bc.every[k] = cfg->want.every[k];
		if (cfg->want.on[k] && a->chosen[stk_res_kind((enum stk_res_kind)k)->source])
			bc.enabled |= 1u << k;
	}
	if (stk_stack_maps_fill_targets(&maps, &cfg->common))
		return -1;
	/* The sample reader and tables exist before the first event. */
	if (rung != STK_UNWIND_FP && stk_session_dwarf(session, s->maps.res_samples, true))
		return -1;
	if (rung == STK_UNWIND_CFI && stk_session_kernel_unwind(session, s))
		return -1;
	return bpf_map__update_elem(s->maps.res_config, &zero, sizeof(zero), &bc, sizeof(bc), 0);
}

/* The frames that say what the numbers are (core/resources/marks.h). 0, or -1 when out of memory. */
static int mark(const struct res_run *run, struct stk_stack *st, const struct stk_res_key *key)
{
	const struct stk_stack_opts *o = &run->cfg.common;
	const char *who;

	stk_trim_tracing(st);
	if (key->kind == STK_RES_BLOCK || key->kind == STK_RES_BLOCK_TIME) {
		if (stk_stack_mark_leaf(st, key->detail == STK_RES_BLOCK_WRITE ? "[block write]" : "[block read]"))
			return -1;
	} else if (key->detail && !o->user_only) {
		/* a system call's bytes: its name stands for the kernel frames not taken */
		if (stk_stack_mark_leaf(st, stk_res_syscall_frame(stk_syscall_name((int)key->detail - 1))))
			return -1;
	}
	/* without BTF a kernel thread shows as one without a user stack */
	uint32_t who_id = key->who;
	if (who_id == STK_RES_WHO_USER && key->user_stack_id == -EFAULT && !key->user_chain && !key->content_hash)
		who_id = STK_RES_WHO_KTHREAD;
	who = stk_res_who_label(st, who_id);
	return who ? stk_stack_mark_root(st, who) : 0;
}

struct collect_ctx {
	struct res_run *run;
	struct stk_stack_list *list;
};

/* One count key with its stacks: chains, a stack copy's hash, or stack ids. */
static int add_counted(void *ctx, const void *key_bytes, uint64_t total)
{
	struct res_run *run = ((struct collect_ctx *)ctx)->run;
	struct stk_stack_list *list = ((struct collect_ctx *)ctx)->list;
	const struct stk_res_key *key = key_bytes;
	struct stk_dwarf_samples *dwarf = run->session.dwarf;
	uint64_t value = key->kind == STK_RES_BLOCK_TIME ? total / 1000 : total; /* ns: microseconds */
	struct stk_stack *st;

	if (key->kind >= STK_RES_KIND_COUNT || run->type_of[key->kind] < 0 || value == 0)
		return 0;
	if (dwarf && key->content_hash) {
		st = stk_dwarf_samples_add(dwarf, list, key->content_hash, key->tgid, key->tid, key->comm, value);
	} else {
		const struct stk_counted_key k = {
			.tgid = key->tgid, .tid = key->tid, .comm = key->comm, .kernel_stack_id = key->kernel_stack_id,
			.user_stack_id = key->user_stack_id, .kernel_chain = key->kernel_chain,
			.user_chain = key->user_chain, .value = value,
		};
		struct stk_stack_source src = stk_session_stack_source(&run->session,
								       bpf_map__fd(run->attach.skel->maps.res_stacks));

		st = stk_stack_list_add_key(list, &k, &src);
	}
	if (!st)
		return -1;
	st->type = (uint32_t)run->type_of[key->kind];
	return mark(run, st, key);
}

static int print_results(void *arg)
{
	struct res_run *run = arg;
	const struct res_config *cfg = &run->cfg;
	struct stk_stack_list list = { 0 };
	struct collect_ctx cc = { run, &list };
	int ret;

	stk_session_begin_results(&run->session);
	if (stk_percpu_counts_each(bpf_map__fd(run->attach.skel->maps.res_counts), sizeof(struct stk_res_key),
				   add_counted, &cc)) {
		stk_error(APPLET, "out of memory while reading the totals");
		stk_stack_list_free(&list);
		return -1;
	}
	struct stk_report report = {
		.value_type = run->types[0].type,
		.value_unit = run->types[0].unit,
		.types = run->types,
		.n_types = run->n_types,
		.title = run->title,
	};
	struct stk_output_opts opts = { .show_tid = cfg->common.n_tids > 0 };
	ret = stk_session_print(&run->session, &list, &report, &opts);
	stk_stack_list_free(&list);
	return ret;
}

static void print_header(void *arg)
{
	const struct res_run *run = arg;
	const struct res_config *cfg = &run->cfg;
	const char *who = cfg->common.n_pids ? "the given processes" : cfg->common.n_tids ? "the given threads"
			  : "all threads";
	const char *which = cfg->common.user_only ? "user" : cfg->common.kernel_only ? "kernel" : "user + kernel";

	printf("Tracing ");
	for (size_t i = 0; i < run->n_types; i++)
		printf("%s%s (%s)", i ? ", " : "", run->types[i].type, run->types[i].unit);
	printf(" of %s by %s stack", who, which);
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

/* The report's value types: each kind asked for whose source runs here. */
static void choose_types(struct res_run *run)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		const struct stk_res_kind_info *i = stk_res_kind((enum stk_res_kind)k);

		run->type_of[k] = -1;
		if (!run->cfg.want.on[k] || !run->attach.chosen[i->source])
			continue;
		run->type_of[k] = (int)run->n_types;
		run->types[run->n_types++] = (struct stk_value_type){ i->type, i->unit };
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
	char kinds[64];

	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (!stk_res_request_wants(&cfg->want, (enum stk_res_source)s))
			continue;
		stk_res_source_kinds(&cfg->want, (enum stk_res_source)s, false, kinds, sizeof(kinds));
		if (!a->chosen[s])
			fprintf(stderr, "%s: %s unavailable on this kernel (%s)\n", APPLET, kinds, a->tried[s]);
		else if (cfg->common.verbose)
			fprintf(stderr, "%s: %s: mechanism %s%s%s%s\n", APPLET, kinds, a->chosen[s]->name,
				a->tried[s][0] ? " (passed over: " : "", a->tried[s], a->tried[s][0] ? ")" : "");
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
	static const char *const suffix[STK_UNWIND_RUNG_COUNT] = {
		[STK_UNWIND_CFI] = "_cfi", [STK_UNWIND_DWARF] = "_dwarf", [STK_UNWIND_FP] = NULL,
	};
	struct res_run *run = arg;
	struct res_config *cfg = &run->cfg;
	struct stk_session *session = &run->session;
	char err[2048], release[256] = "", tracefs_err[256];
	const char *how;

	if (stk_session_open(session, APPLET, &cfg->common, cfg->common.pids, cfg->common.n_pids))
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
		.program_suffix = suffix[rung],
		.maps = res_maps,
		.extra_maps = rung == STK_UNWIND_CFI ? stk_unwind_map_names : NULL,
		.extra_programs = rung == STK_UNWIND_CFI ? stk_unwind_program_names : NULL,
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
	choose_types(run);
	session->capture = (struct stk_stack_capture){
		.header = print_header, .detach = detach, .results = print_results,
		.losses = { .stats = run->attach.skel->maps.res_stats, .counts_size = DEFAULT_COUNTS_SIZE,
			    .unit = "events" },
	};
	return stk_session_start(session, run->attach.skel->maps.res_new_process, 0);
}

static void teardown(void *arg)
{
	struct res_run *run = arg;

	stk_res_attachment_release(&run->attach);
	stk_session_close(&run->session);
	stk_stack_opts_free(&run->cfg.common);
	free(run->cpus);
}

static int resources_main(int argc, char **argv)
{
	static const struct stk_applet_steps steps = {
		.parse = parse_args, .setup = setup, .teardown = teardown,
		.session_offset = offsetof(struct res_run, session),
	};
	/* on the heap: large (the attachment's reasons) */
	return stk_applet_run_new(&steps, sizeof(struct res_run), APPLET, argc, argv);
}

STK_APPLET(resources, .name = "resources", .summary = "which code paths grow memory and do disk and network I/O, and how much?",
	   .main = resources_main, .bare_link = true, .rank = 35);
