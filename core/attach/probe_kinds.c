#include "core/attach/probe_kinds.h"

#include <stdio.h>
#include <string.h>

#include "core/attach/attach_kfunc.h"
#include "core/attach/attach_tracepoint.h"
#include "core/attach/attach_uprobe.h"
#include "core/base/tracefs.h"
#include "core/probe/usdt_notes.h"

/* Names listed in messages before "(+N more)". */
#define LIST_SHOWN 8

void stk_probe_list_names(char *buf, size_t len, char *const *names, size_t n, size_t shown)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < shown && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", names[i]);
	if (n > shown && used < len)
		snprintf(buf + used, len - used, " (+%zu more)", n - shown);
}

static int find_kernel_functions(struct stk_probe_targets *t, pid_t pid, char *err, size_t len)
{
	const char *how;
	char tracefs_err[512];
	/* Where tracefs cannot be mounted, kallsyms alone still names the functions. */
	bool tracefs = stk_tracefs_ensure(&how, tracefs_err, sizeof(tracefs_err)) == 0;
	struct stk_kfunc_sources src = {
		.traceable = tracefs ? stk_tracefs_open("available_filter_functions") : NULL,
		.kallsyms = fopen("/proc/kallsyms", "re"),
		.blacklist = fopen("/sys/kernel/debug/kprobes/blacklist", "re"),
	};
	int ret = stk_match_kernel_functions(&src, &t->match, &t->names, &t->untraceable);

	(void)pid;
	if (src.traceable)
		fclose(src.traceable);
	if (src.kallsyms)
		fclose(src.kallsyms);
	if (src.blacklist)
		fclose(src.blacklist);
	if (ret) {
		snprintf(err, len, "cannot read the kernel's functions (/proc/kallsyms, available_filter_functions)");
		return -1;
	}
	if (t->names.n == 0) {
		char names[1024];
		if (t->untraceable.n) {
			stk_probe_list_names(names, sizeof(names), t->untraceable.names, t->untraceable.n, LIST_SHOWN);
			snprintf(err, len, "'%s' matches only functions that cannot be traced (notrace or blacklisted): %s",
				 t->pattern.name, names);
		} else {
			snprintf(err, len, "no kernel function matches '%s' (unknown, or inlined away)", t->pattern.name);
		}
		return -1;
	}
	return 0;
}

static int find_tracepoints(struct stk_probe_targets *t, pid_t pid, char *err, size_t len)
{
	(void)pid;
	return stk_find_tracepoints(&t->category, &t->match, t->pattern.category, t->pattern.name, &t->names, err, len);
}

static int find_user_functions(struct stk_probe_targets *t, pid_t pid, char *err, size_t len)
{
	if (stk_user_file_resolve(t->pattern.lib, pid, &t->file, err, len) ||
	    stk_user_functions(t->file.path, &t->match, &t->funcs, err, len))
		return -1;
	if (t->funcs.n == 0) {
		snprintf(err, len, "no function matches '%s' in %s", t->pattern.name, t->file.display);
		return -1;
	}
	return 0;
}

static int find_usdt_probes(struct stk_probe_targets *t, pid_t pid, char *err, size_t len)
{
	if (stk_user_file_resolve(t->pattern.lib, pid, &t->file, err, len) ||
	    stk_usdt_probes(t->file.path, t->category_ready ? &t->category : NULL, &t->match, &t->names, err, len))
		return -1;
	if (t->names.n == 0) {
		snprintf(err, len, "USDT probe '%s' not found in %s", t->pattern.name, t->file.display);
		return -1;
	}
	return 0;
}

/* A kernel function request for t's functions. */
static struct stk_kfunc_request kfunc_request(const struct stk_probe_targets *t, const struct stk_probe_request *req,
					      char *tracefs_err, size_t tracefs_len)
{
	const char *how;

	return (struct stk_kfunc_request){
		.names = t->names.names,
		.n = t->names.n,
		.forced = req->forced,
		.tracefs_error = stk_tracefs_ensure(&how, tracefs_err, tracefs_len) ? tracefs_err : NULL,
		.kernel_btf = req->kernel_btf,
		.fentry_max = req->fentry_max,
	};
}

static int attach_kernel_functions(struct stk_probe_set *s, const struct stk_probe_load *load,
				   const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err,
				   size_t len)
{
	char tracefs_err[256];
	const struct stk_kfunc_request kr = kfunc_request(t, req, tracefs_err, sizeof(tracefs_err));

	return stk_kfunc_attach(s, load, &kr, err, len);
}

static int attach_tracepoints(struct stk_probe_set *s, const struct stk_probe_load *load,
			      const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err, size_t len)
{
	return stk_tracepoint_attach(s, load, t->names.names, t->names.n, req->forced, err, len);
}

static int attach_user_functions(struct stk_probe_set *s, const struct stk_probe_load *load,
				 const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err,
				 size_t len)
{
	return stk_uprobe_attach(s, load, t->file.path, &t->funcs, req->pid, req->forced, err, len);
}

static int attach_usdt_probes(struct stk_probe_set *s, const struct stk_probe_load *load,
			      const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err, size_t len)
{
	return stk_usdt_attach(s, load, t->file.path, t->names.names, t->names.n, req->pid, err, len);
}

static int attach_kernel_functions_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
				      const char *program, const struct stk_probe_targets *t,
				      const struct stk_probe_request *req, char *err, size_t len)
{
	char tracefs_err[256];
	const struct stk_kfunc_request kr = kfunc_request(t, req, tracefs_err, sizeof(tracefs_err));

	return stk_kfunc_attach_in(s, skel, mechanism, program, &kr, err, len);
}

static int attach_tracepoints_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
				 const char *program, const struct stk_probe_targets *t,
				 const struct stk_probe_request *req, char *err, size_t len)
{
	(void)req;
	return stk_tracepoint_attach_in(s, skel, mechanism, program, t->names.names, t->names.n, err, len);
}

static int attach_user_functions_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
				    const char *program, const struct stk_probe_targets *t,
				    const struct stk_probe_request *req, char *err, size_t len)
{
	return stk_uprobe_attach_in(s, skel, mechanism, program, t->file.path, &t->funcs, req->pid, err, len);
}

static int attach_usdt_probes_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
				 const char *program, const struct stk_probe_targets *t,
				 const struct stk_probe_request *req, char *err, size_t len)
{
	(void)mechanism;
	return stk_usdt_attach_in(s, skel, program, t->file.path, t->names.names, t->names.n, req->pid, err, len);
}

static const char *const sc_maps[] = { "sc_config", NULL };
/* libbpf's USDT support keeps its specs in these */
static const char *const sc_usdt_maps[] = {
	"sc_config", "__bpf_usdt_specs", "__bpf_usdt_ip_to_spec_id", "stk_bpf.kconfig", NULL,
};

/* What each kind of probe is, by enum stk_probe_kind: its ladder, what its targets are called, how they are found and attached. */
static const struct probe_kind {
	enum stk_attach_class cls;
	const char *noun;
	const char *const *maps;
	int (*find)(struct stk_probe_targets *t, pid_t pid, char *err, size_t len);
	int (*attach)(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_probe_targets *t,
		      const struct stk_probe_request *req, char *err, size_t len);
	const char *(*program)(const char *mechanism);
	int (*attach_in)(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			 const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err, size_t len);
} probe_kinds[] = {
	[STK_PROBE_KERNEL_FUNCTION] = { STK_ATTACH_KERNEL_FUNCTION, "functions", sc_maps, find_kernel_functions,
					attach_kernel_functions, stk_kfunc_program, attach_kernel_functions_in },
	[STK_PROBE_TRACEPOINT] = { STK_ATTACH_TRACEPOINT, "tracepoints", sc_maps, find_tracepoints, attach_tracepoints,
				   stk_tracepoint_program, attach_tracepoints_in },
	[STK_PROBE_USER_FUNCTION] = { STK_ATTACH_USER_FUNCTION, "functions", sc_maps, find_user_functions,
				      attach_user_functions, stk_uprobe_program, attach_user_functions_in },
	[STK_PROBE_USDT] = { STK_ATTACH_USDT, "USDT probes", sc_usdt_maps, find_usdt_probes, attach_usdt_probes,
			     stk_uprobe_program, attach_usdt_probes_in },
};

enum stk_attach_class stk_probe_kind_class(enum stk_probe_kind k)
{
	return probe_kinds[k].cls;
}

const char *stk_probe_kind_noun(enum stk_probe_kind k)
{
	return probe_kinds[k].noun;
}

const char *const *stk_probe_kind_maps(enum stk_probe_kind k)
{
	return probe_kinds[k].maps;
}

int stk_probe_targets_find(struct stk_probe_targets *t, bool regex, pid_t pid, char *err, size_t len)
{
	const struct stk_probe_pattern *p = &t->pattern;

	if (stk_name_match_init(&t->match, p->name, regex, err, len))
		return -1;
	t->match_ready = true;
	if (p->category[0]) {
		if (stk_name_match_init(&t->category, p->category, false, err, len))
			return -1;
		t->category_ready = true;
	}
	return probe_kinds[p->kind].find(t, pid, err, len);
}

size_t stk_probe_targets_count(const struct stk_probe_targets *t)
{
	return t->pattern.kind == STK_PROBE_USER_FUNCTION ? t->funcs.n : t->names.n;
}

const char *stk_probe_target_name(const struct stk_probe_targets *t, size_t i)
{
	return t->pattern.kind == STK_PROBE_USER_FUNCTION ? t->funcs.funcs[i].name : t->names.names[i];
}

void stk_probe_targets_free(struct stk_probe_targets *t)
{
	if (t->match_ready)
		stk_name_match_free(&t->match);
	if (t->category_ready)
		stk_name_match_free(&t->category);
	t->match_ready = t->category_ready = false;
	stk_name_list_free(&t->names);
	stk_name_list_free(&t->untraceable);
	stk_user_func_list_free(&t->funcs);
}

int stk_probe_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_probe_targets *t,
		     const struct stk_probe_request *req, char *err, size_t len)
{
	return probe_kinds[t->pattern.kind].attach(s, load, t, req, err, len);
}

const char *stk_probe_program(const struct stk_probe_targets *t, const char *mechanism)
{
	return probe_kinds[t->pattern.kind].program(mechanism);
}

int stk_probe_prepare_in(struct bpf_program *prog, const struct stk_probe_targets *t, const char *mechanism,
			 char *err, size_t len)
{
	const struct stk_kfunc_request kr = { .names = t->names.names, .n = t->names.n };

	if (t->pattern.kind != STK_PROBE_KERNEL_FUNCTION)
		return 0;
	return stk_kfunc_prepare_in(prog, mechanism, &kr, err, len);
}

int stk_probe_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err, size_t len)
{
	return probe_kinds[t->pattern.kind].attach_in(s, skel, mechanism, program, t, req, err, len);
}
