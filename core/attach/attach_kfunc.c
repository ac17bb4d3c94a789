#include "core/attach/attach_kfunc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/ladder/ladder.h"
#include "core/ladder/precondition.h"

#define FENTRY_PROGRAM "stk_sc_fentry"

/*
 * Functions after the first: the loaded program's final instructions (map
 * fds already in place) loaded again with another attach_btf_id.
 */
static int attach_fentry_clone(struct stk_probe_set *s, const char *func, char *why, size_t len)
{
	int btf_id = libbpf_find_vmlinux_btf_id(func, BPF_TRACE_FENTRY);
	if (btf_id < 0) {
		snprintf(why, len, "no BTF for %s", func);
		return -1;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY, .attach_btf_id = (__u32)btf_id);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, FENTRY_PROGRAM, "GPL", bpf_program__insns(s->prog),
			       bpf_program__insn_cnt(s->prog), &o);
	if (fd < 0) {
		snprintf(why, len, "load for %s failed: %s", func, strerror(errno));
		return -1;
	}
	if (stk_probe_set_add_fd(s, fd))
		goto nomem;
	/* raw_tracepoint_open attaches tracing programs on every kernel that has them (5.5+) */
	int link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		snprintf(why, len, "attach to %s failed: %s", func, strerror(errno));
		return -1;
	}
	if (stk_probe_set_add_fd(s, link))
		goto nomem;
	return 0;
nomem:
	snprintf(why, len, "out of memory");
	return -1;
}

/* The program of each mechanism (one per --unwind rung: these names with its suffix). */
static const char *const programs[] = {
	[STK_KFUNC_FENTRY] = FENTRY_PROGRAM,
	[STK_KFUNC_KPROBE_MULTI] = "stk_sc_kprobe_multi",
	[STK_KFUNC_KPROBE] = "stk_sc_kprobe",
	[STK_KFUNC_KPROBE_LEGACY] = "stk_sc_kprobe",
};

/* fentry: the first function is the loaded program's own target, the others its clones. */
static int attach_fentry(struct stk_probe_set *s, const struct stk_kfunc_request *req, char *why, size_t len)
{
	if (stk_probe_set_add_link(s, bpf_program__attach_trace(s->prog))) {
		snprintf(why, len, "attach to %s failed: %s", req->names[0], strerror(errno));
		return -1;
	}
	stk_probe_set_progress(s, 1, req->n);
	for (size_t i = 1; i < req->n; i++) {
		if (attach_fentry_clone(s, req->names[i], why, len))
			return -1;
		stk_probe_set_progress(s, i + 1, req->n);
	}
	return 0;
}

static int attach_kprobe_multi(struct stk_probe_set *s, const struct stk_kfunc_request *req, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)req->names, .cnt = req->n);

	/* A kernel without fprobe refuses it: the reason goes into "passed over", not libbpf's warning. */
	libbpf_print_fn_t print = libbpf_set_print(NULL);
	struct bpf_link *link = bpf_program__attach_kprobe_multi_opts(s->prog, NULL, &o);
	int saved = errno;
	libbpf_set_print(print);
	if (stk_probe_set_add_link(s, link)) {
		snprintf(why, len, "attach failed: %s", strerror(link ? errno : saved));
		return -1;
	}
	return 0;
}

static int attach_kprobes(struct stk_probe_set *s, const struct stk_kfunc_request *req, bool legacy, char *why,
			  size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .attach_mode = legacy ? PROBE_ATTACH_MODE_LEGACY : PROBE_ATTACH_MODE_PERF);

	for (size_t i = 0; i < req->n; i++) {
		if (stk_probe_set_add_link(s, bpf_program__attach_kprobe_opts(s->prog, req->names[i], &o))) {
			snprintf(why, len, "attach to %s failed: %s", req->names[i], strerror(errno));
			return -1;
		}
		stk_probe_set_progress(s, i + 1, req->n);
	}
	return 0;
}

/* Legacy kprobes are tracefs entries: have them removed even if stk is killed. 0, or -1 with why. */
static int guard_legacy(struct stk_probe_set *s, enum stk_kfunc_mech m, char *why, size_t len)
{
	if (m != STK_KFUNC_KPROBE_LEGACY || stk_probe_set_guard(s) == 0)
		return 0;
	snprintf(why, len, "starting the kprobe_events cleanup guard failed");
	return -1;
}

/* s->prog (loaded, fentry's target the first function) attached to every function by mechanism m. */
static int attach_loaded(struct stk_probe_set *s, enum stk_kfunc_mech m, const struct stk_kfunc_request *req,
			 char *why, size_t len)
{
	switch (m) {
	case STK_KFUNC_FENTRY: return attach_fentry(s, req, why, len);
	case STK_KFUNC_KPROBE_MULTI: return attach_kprobe_multi(s, req, why, len);
	case STK_KFUNC_KPROBE: return attach_kprobes(s, req, false, why, len);
	case STK_KFUNC_KPROBE_LEGACY: return attach_kprobes(s, req, true, why, len);
	}
	snprintf(why, len, "unknown mechanism");
	return -1;
}

struct kfunc_ctx {
	struct stk_probe_set *s;
	const struct stk_probe_load *load;
	const struct stk_kfunc_request *req;
};

static int try_rung(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	const struct kfunc_ctx *k = ctx;
	const struct stk_precondition_env env = {
		.kernel_btf = k->req->kernel_btf, .tracefs_error = k->req->tracefs_error, .root = "",
	};
	const char *pre = stk_precondition((enum stk_feature)r->feature, &env, why, len);

	if (pre) {
		if (pre != why)
			snprintf(why, len, "%s", pre);
		return -1;
	}
	enum stk_kfunc_mech m = (enum stk_kfunc_mech)r->id;

	if (guard_legacy(k->s, m, why, len) ||
	    stk_probe_set_load(k->s, k->load, programs[m], m == STK_KFUNC_FENTRY ? k->req->names[0] : NULL, why, len))
		return -1;
	return attach_loaded(k->s, m, k->req, why, len);
}

int stk_kfunc_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_kfunc_request *req,
		     char *err, size_t len)
{
	const struct stk_rung *order[8];
	size_t n = stk_ladder_order(STK_ATTACH_KERNEL_FUNCTION, req->n, req->fentry_max, order, 8);
	struct kfunc_ctx k = { s, load, req };

	if (stk_probe_set_climb(s, STK_ATTACH_KERNEL_FUNCTION, order, n, req->forced, try_rung, &k,
				"no mechanism can trace kernel functions on this kernel", err, len))
		return -1;
	s->n_targets = req->n;
	return 0;
}

/* The rung of the kernel function ladder named mechanism, or NULL. */
static const struct stk_rung *rung_of(const char *mechanism)
{
	return stk_rung_by_name(STK_ATTACH_KERNEL_FUNCTION, mechanism);
}

const char *stk_kfunc_program(const char *mechanism)
{
	const struct stk_rung *r = rung_of(mechanism);

	return r ? programs[r->id] : NULL;
}

int stk_kfunc_prepare_in(struct bpf_program *prog, const char *mechanism, const struct stk_kfunc_request *req,
			 char *err, size_t len)
{
	const struct stk_rung *r = rung_of(mechanism);
	int ret;

	if (!r || r->id != STK_KFUNC_FENTRY)
		return 0;
	if ((ret = bpf_program__set_attach_target(prog, 0, req->names[0]))) {
		snprintf(err, len, "no BTF for %s: %s", req->names[0], strerror(-ret));
		return -1;
	}
	return 0;
}

int stk_kfunc_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			const struct stk_kfunc_request *req, char *err, size_t len)
{
	const struct stk_rung *r = rung_of(mechanism);

	if (!r) {
		snprintf(err, len, "no kernel function mechanism %s", mechanism ? mechanism : "(none)");
		return -1;
	}
	if (stk_probe_set_use(s, skel, program, err, len) || guard_legacy(s, (enum stk_kfunc_mech)r->id, err, len) ||
	    attach_loaded(s, (enum stk_kfunc_mech)r->id, req, err, len)) {
		stk_probe_set_release(s);
		return -1;
	}
	s->mechanism = r->name;
	s->n_targets = req->n;
	return 0;
}
