/*
 * stk info: what the running kernel offers, found by loading and attaching
 * a tiny program per mechanism, and which mechanism each applet would use.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/bpf/bpf_object.h"
#include "core/bpf/btf_embedded.h"
#include "core/btf/btf_source.h"
#include "core/base/caps.h"
#include "core/bpf/features.h"
#include "core/bpf/unwind_facts.h"
#include "core/runtime/runtime.h"
#include "core/base/kernel_release.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/bpf/libbpf_log.h"
#include "core/ladder/ladder.h"
#include "core/ladder/precondition.h"
#include "core/base/sysfs_read.h"
#include "core/base/tracefs.h"
#include "core/base/dispatch.h"

struct info_config {
	int verbose;
	const char *btf_file;
};

static void print_help(void)
{
	printf("usage: stk info [-v] [--btf FILE]\n\n"
	       "Probes the running kernel by loading and attaching one tiny BPF program per\n"
	       "mechanism and prints one 'name: value' line each, then the mechanism every\n"
	       "applet would use here (first available in its fallback order).\n\n"
	       "  --btf FILE   use this kernel BTF (raw BTF or an ELF with .BTF) for CO-RE\n"
	       "  -v           also print libbpf's messages\n"
	       "  -h, --help   this help\n");
}

static int parse_args(int argc, char **argv, struct info_config *cfg)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	char msg[512];

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': cfg->verbose = 1; break;
		case 'B': cfg->btf_file = optarg; break;
		case 'h': print_help(); return 1;
		default:
			stk_error("info", "%s", stk_getopt_problem(c, "info", argv, msg, sizeof(msg)));
			return -1;
		}
	}
	if (optind < argc) {
		stk_error("info", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

static void print_sysctl(const char *name, const char *path)
{
	long v;

	if (stk_read_long(path, &v) == 0)
		printf("%s: %ld\n", name, v);
	else
		printf("%s: unknown (%s unreadable)\n", name, path);
}

/* A rung whose feature works: its other needs (tracepoint, BTF, kernel version) met too. */
static bool rung_usable(const struct stk_rung *r, void *ctx)
{
	char why[256];

	return stk_rung_precondition(r, ctx, why, sizeof(why)) == NULL;
}

/* Per class: the rung an applet would use here and the ladder it climbs (core/ladder/ladder.c). */
static void print_mechanisms(const struct stk_feature_result results[STK_FEATURE_COUNT],
			     const struct stk_precondition_env *env)
{
	bool available[STK_FEATURE_COUNT];

	for (int f = 0; f < STK_FEATURE_COUNT; f++)
		available[f] = results[f].available;
	for (int c = 0; c < STK_ATTACH_CLASS_COUNT; c++) {
		const struct stk_ladder *l = stk_ladder_for((enum stk_attach_class)c);
		const struct stk_rung *r = stk_ladder_choose_usable((enum stk_attach_class)c, available, rung_usable,
								    (void *)env);
		char order[128] = "";
		size_t used = 0;

		for (size_t i = 0; i < l->n && used < sizeof(order); i++)
			used += (size_t)snprintf(order + used, sizeof(order) - used, "%s%s", i ? " > " : "",
						 l->rungs[i].name);
		printf("%s %s: %s (order: %s)\n", l->users, l->name, r ? r->name : "none", order);
	}
}

static int info_main(const struct stk_invocation *inv)
{
	struct info_config cfg = { 0 };
	struct stk_caps caps;
	char release[256], capsbuf[256], tracefs_err[256], btf_line[1024];
	struct stk_btf_source btf;
	struct utsname uts;
	const char *tracefs_how = "";
	int ret = parse_args(inv->argc, inv->argv, &cfg);

	if (ret)
		return ret > 0 ? 0 : STK_EXIT_USAGE;
	if (stk_caps_read_self(&caps) || !stk_caps_can_trace(&caps)) {
		stk_error("info", "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN) to load BPF "
				  "probes; running as uid %d without them", (int)geteuid());
		return STK_EXIT_USAGE;
	}
	stk_libbpf_set_verbose(cfg.verbose);
	uname(&uts);
	stk_kernel_release(release, sizeof(release));
	if (stk_btf_resolve_here(cfg.btf_file, &btf)) {
		stk_error("info", "--btf %s: %s", cfg.btf_file, btf.detail);
		return STK_EXIT_USAGE;
	}
	if (btf.kind == STK_BTF_FILE) {
		struct btf *parsed = btf__parse(btf.path, NULL);
		if (!parsed) {
			stk_error("info", "--btf %s: not a BTF file or an ELF file with a .BTF section",
				  btf.path);
			return STK_EXIT_USAGE;
		}
		btf__free(parsed);
	}
	int tracefs_failed = stk_tracefs_ensure(&tracefs_how, tracefs_err, sizeof(tracefs_err));

	printf("kernel release: %s\n", release);
	printf("machine: %s\n", uts.machine);
	stk_btf_describe(&btf, btf_line, sizeof(btf_line));
	printf("btf: %s\n", btf_line);
	printf("tracefs: %s\n", tracefs_failed ? tracefs_err : tracefs_how);
	char lockdown[32] = "unknown";
	stk_lockdown_mode(lockdown, sizeof(lockdown));
	bool locked_down = strcmp(lockdown, "none") != 0 && strcmp(lockdown, "unknown") != 0;
	printf("lockdown: %s\n", lockdown);

	struct stk_feature_env env = {
		.btf_custom_path = stk_btf_custom_path(&btf),
		.tracefs_error = tracefs_failed ? tracefs_err : NULL,
		.no_kernel_btf = !btf.kernel_btf,
	};
	char empty_btf[64];
	int empty_btf_fd = -1;
	if (btf.kind == STK_BTF_NONE) {
		/* Still probe what needs no CO-RE (perf_event, kprobe, tracepoints...). */
		empty_btf_fd = stk_bpf_empty_btf(empty_btf, sizeof(empty_btf));
		if (empty_btf_fd >= 0)
			env.btf_custom_path = empty_btf;
	}
	struct stk_feature_result results[STK_FEATURE_COUNT];
	for (int f = 0; f < STK_FEATURE_COUNT; f++) {
		stk_feature_probe(&env, f, &results[f]);
		/* Lockdown refuses some program types with a bare EPERM: say why. */
		if (!results[f].available && locked_down && strstr(results[f].detail, "not permitted"))
			snprintf(results[f].detail + strlen(results[f].detail),
				 sizeof(results[f].detail) - strlen(results[f].detail),
				 "; kernel lockdown is %s", lockdown);
		printf("%s: %s (%s)\n", stk_feature_name(f), results[f].available ? "yes" : "no",
		       results[f].detail);
		fflush(stdout);
	}
	char unwind[512];
	struct stk_unwind_facts facts;
	stk_unwind_facts_here(btf.kind != STK_BTF_NONE, &facts);
	stk_unwind_facts_describe(&facts, unwind, sizeof(unwind));
	printf("unwind: %s\n", unwind);
	/* where interpreted frames are read follows the rung: the kernel walk, else user space when it handles a copy */
	printf("interpreter frames: %s; %s\n", stk_runtime_versions(),
	       stk_unwind_rung_missing(STK_UNWIND_CFI, &facts, false)
		       ? "here read from the process's memory by user space (dwarf, and pmp); none on fp"
		       : "here walked in the kernel (cfi); read from the process's memory by user space on dwarf "
			 "and in pmp; none on fp");
	print_sysctl("kernel.perf_event_max_stack", "/proc/sys/kernel/perf_event_max_stack");
	print_sysctl("kernel.perf_event_max_sample_rate", "/proc/sys/kernel/perf_event_max_sample_rate");
	print_sysctl("kernel.unprivileged_bpf_disabled", "/proc/sys/kernel/unprivileged_bpf_disabled");
	print_sysctl("kernel.kptr_restrict", "/proc/sys/kernel/kptr_restrict");
	stk_caps_describe(&caps, capsbuf, sizeof(capsbuf));
	printf("capabilities: %s (euid %d)\n", capsbuf, (int)geteuid());
	const struct stk_precondition_env pre_env = {
		.kernel_btf = btf.kernel_btf,
		.tracefs_error = tracefs_failed ? tracefs_err : NULL,
		.root = "",
		.any_btf = btf.kind != STK_BTF_NONE,
		.release = release,
	};
	print_mechanisms(results, &pre_env);
	if (empty_btf_fd >= 0)
		close(empty_btf_fd);
	stk_btf_source_release(&btf);
	return 0;
}

STK_APPLET(info, .name = "info", .summary = "what this kernel offers and which mechanism each applet uses", .main = info_main,
	   .bare_link = false, .rank = 90);
