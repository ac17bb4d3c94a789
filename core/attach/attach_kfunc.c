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

static int try_fentry(struct stk_probe_set *s, const struct stk_probe_load *load,
		      const struct stk_kfunc_request *req, char *why, size_t len)
{
	if (stk_probe_set_load(s, load, FENTRY_PROGRAM, req->names[0], why, len))
		return -1;
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

static int try_kprobe_multi(struct stk_probe_set *s, const struct stk_probe_load *load,
			    const struct stk_kfunc_request *req, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)req->names, .cnt = req->n);

	if (stk_probe_set_load(s, load, "stk_sc_kprobe_multi", NULL, why, len))
		return -1;
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

static int try_kprobe(struct stk_probe_set *s, const struct stk_probe_load *load,
		      const struct stk_kfunc_request *req, bool legacy, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .attach_mode = legacy ? PROBE_ATTACH_MODE_LEGACY : PROBE_ATTACH_MODE_PERF);

	if (legacy) {
		if (stk_probe_set_guard(s)) {
			snprintf(why, len, "starting the kprobe_events cleanup guard failed");
			return -1;
		}
	}
	if (stk_probe_set_load(s, load, "stk_sc_kprobe", NULL, why, len))
		return -1;
	for (size_t i = 0; i < req->n; i++) {
		if (stk_probe_set_add_link(s, bpf_program__attach_kprobe_opts(s->prog, req->names[i], &o))) {
			snprintf(why, len, "attach to %s failed: %s", req->names[i], strerror(errno));
			return -1;
		}
		stk_probe_set_progress(s, i + 1, req->n);
	}
	return 0;
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
	switch ((enum stk_kfunc_mech)r->id) {
	case STK_KFUNC_FENTRY: return try_fentry(k->s, k->load, k->req, why, len);
	case STK_KFUNC_KPROBE_MULTI: return try_kprobe_multi(k->s, k->load, k->req, why, len);
	case STK_KFUNC_KPROBE: return try_kprobe(k->s, k->load, k->req, false, why, len);
	case STK_KFUNC_KPROBE_LEGACY: return try_kprobe(k->s, k->load, k->req, true, why, len);
	}
	snprintf(why, len, "unknown mechanism");
	return -1;
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
