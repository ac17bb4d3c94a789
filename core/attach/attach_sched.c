#include "core/attach/attach_sched.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "core/bpf/bpf_object.h"
#include "core/base/tracefs.h"
#include "core/ladder/climb.h"
#include "core/ladder/precondition.h"
#include "stk.skel.h"

struct stk_sched_attachment {
	struct stk_bpf *skel;
	bool owns_skel; /* it loaded skel (offcputime), or attached into the caller's (stk record) */
	struct bpf_link *link;
	struct bpf_link *free_link;
	enum stk_sched_mech mech;
	char target[128];
	char tried[768];
	const struct stk_sched_request *req; /* while attaching */
};

static const char *no_btf(const struct stk_sched_request *req)
{
	return req->no_btf_why ? req->no_btf_why : "reading task fields needs BTF, none found";
}

/* Why a mechanism cannot even be tried here, or NULL. */
static const char *precondition(const struct stk_sched_request *req, const struct stk_rung *r, char *target,
				size_t tlen, char *why, size_t wlen)
{
	struct stk_precondition_env env = { .kernel_btf = req->kernel_btf, .root = "" };
	const char *how;

	if (!req->programs[r->id])
		return "not built for this applet";
	/* Only the rungs that go through tracefs make it reachable (it may need a mount). */
	if (r->id == STK_SCHED_TRACEPOINT || r->id == STK_SCHED_KPROBE)
		env.tracefs_error = stk_tracefs_ensure(&how, why, wlen) ? why : NULL;
	switch ((enum stk_sched_mech)r->id) {
	case STK_SCHED_TP_BTF:
	case STK_SCHED_TRACEPOINT:
		return stk_precondition((enum stk_feature)r->feature, &env, why, wlen);
	case STK_SCHED_RAW_TP:
		return req->core_btf || !req->needs_task_state ? NULL : no_btf(req);
	case STK_SCHED_KPROBE: {
		if (!req->core_btf)
			return no_btf(req);
		FILE *f = fopen("/proc/kallsyms", "re");
		int found = f ? stk_find_finish_task_switch(f, target, tlen) : -1;
		if (f)
			fclose(f);
		if (found)
			return "no finish_task_switch in /proc/kallsyms";
		/* libbpf takes the perf PMU where there is one, else legacy kprobe_events */
		if (stk_precondition(STK_FEATURE_KPROBE_PMU, &env, why, wlen) &&
		    stk_precondition(STK_FEATURE_KPROBE_LEGACY, &env, why, wlen))
			return "neither a kprobe PMU nor kprobe_events in tracefs";
		return NULL;
	}
	case STK_SCHED_MECH_COUNT:
		break;
	}
	return "unknown mechanism";
}

static struct bpf_link *attach_one(struct bpf_program *prog, enum stk_sched_mech m, const char *target)
{
	switch (m) {
	case STK_SCHED_TP_BTF:
		return bpf_program__attach_trace(prog);
	case STK_SCHED_RAW_TP:
		return bpf_program__attach_raw_tracepoint(prog, "sched_switch");
	case STK_SCHED_TRACEPOINT:
		return bpf_program__attach_tracepoint(prog, "sched", "sched_switch");
	case STK_SCHED_KPROBE:
		return bpf_program__attach_kprobe(prog, false, target);
	case STK_SCHED_MECH_COUNT:
		break;
	}
	errno = EINVAL;
	return NULL;
}

static void release(struct stk_sched_attachment *a)
{
	bpf_link__destroy(a->link);
	bpf_link__destroy(a->free_link);
	if (a->owns_skel)
		stk_bpf__destroy(a->skel);
	a->link = a->free_link = NULL;
	a->skel = NULL;
}

/* Mechanism m's programs (with req's suffix) into names, NULL-terminated: its own and the cleanup on free. */
static void programs_of(const struct stk_sched_request *req, enum stk_sched_mech m, struct stk_sched_programs *p)
{
	/* Task-pointer keys need the cleanup on free (see bpf/offcputime.bpf.c). */
	bool with_free = req->free_program && (m == STK_SCHED_TP_BTF || m == STK_SCHED_RAW_TP);

	snprintf(p->name, sizeof(p->name), "%s%s", req->programs[m], req->program_suffix ? req->program_suffix : "");
	p->list[0] = p->name;
	p->list[1] = with_free ? req->free_program : NULL;
	p->list[2] = NULL;
}

/* Attaches mechanism m's programs of a->skel (loaded, its configuration written). 0, or -1 with why. */
static int attach_loaded(struct stk_sched_attachment *a, const struct stk_sched_programs *p, enum stk_sched_mech m,
			 char *why, size_t wlen)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(a->skel->obj, p->name);

	a->link = prog ? attach_one(prog, m, a->target) : NULL;
	if (!a->link) {
		snprintf(why, wlen, "attach failed: %s", prog ? strerror(errno) : "program not in the object");
		return -1;
	}
	if (p->list[1]) {
		prog = bpf_object__find_program_by_name(a->skel->obj, p->list[1]);
		a->free_link = prog ? bpf_program__attach_raw_tracepoint(prog, "sched_process_free") : NULL;
		if (!a->free_link) {
			snprintf(why, wlen, "attach to sched_process_free failed: %s", strerror(errno));
			return -1;
		}
	}
	a->mech = m;
	return 0;
}

/* One candidate, end to end. 0, or -1 with why set and nothing left behind. */
static int try_mech(void *ctx, const struct stk_rung *r, char *why, size_t wlen)
{
	struct stk_sched_attachment *a = ctx;
	const struct stk_sched_request *req = a->req;
	enum stk_sched_mech m = (enum stk_sched_mech)r->id;
	struct stk_sched_programs p;
	const char *pre = precondition(req, r, a->target, sizeof(a->target), why, wlen);
	struct stk_bpf_selection sel = { .programs = p.list, .maps = req->maps,
					 .extra_programs = req->extra_programs, .extra_maps = req->extra_maps,
					 .btf_custom_path = req->btf_custom_path };
	char err[256];
	int ret;

	if (pre) {
		if (pre != why)
			snprintf(why, wlen, "%s", pre);
		return -1;
	}
	programs_of(req, m, &p);
	a->owns_skel = true;
	a->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!a->skel) {
		snprintf(why, wlen, "%s", err);
		return -1;
	}
	if (req->before_load && req->before_load(a->skel, req->ctx)) {
		snprintf(why, wlen, "sizing maps failed: %s", strerror(errno));
		goto fail;
	}
	ret = stk_bpf__load(a->skel);
	if (ret) {
		snprintf(why, wlen, "load failed: %s", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	if (req->after_load && req->after_load(a->skel, req->ctx)) {
		snprintf(why, wlen, "writing the configuration failed: %s", strerror(errno));
		goto fail;
	}
	if (attach_loaded(a, &p, m, why, wlen) == 0)
		return 0;
fail:
	release(a);
	return -1;
}

struct stk_sched_attachment *stk_sched_attach(const struct stk_sched_request *req, char *err, size_t errlen)
{
	struct stk_sched_attachment *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->req = req;
	struct stk_climb c = {
		.cls = STK_ATTACH_SCHED_SWITCH, .forced = req->forced, .forced_opt = "--mechanism",
		.attempt = try_mech, .ctx = a,
	};
	int ret = stk_climb_all(&c, "no sched_switch mechanism works on this kernel", err, errlen);
	snprintf(a->tried, sizeof(a->tried), "%s", c.tried);
	a->req = NULL;
	if (ret) {
		free(a);
		return NULL;
	}
	return a;
}

struct stk_sched_attachment *stk_sched_choose(const struct stk_sched_request *req, char *err, size_t errlen)
{
	struct stk_sched_attachment *a = stk_sched_attach(req, err, errlen);

	if (a)
		release(a); /* the choice stays: mechanism, target, what was passed over */
	return a;
}

void stk_sched_programs(const struct stk_sched_attachment *a, const struct stk_sched_request *req,
			struct stk_sched_programs *p)
{
	programs_of(req, a->mech, p);
}

int stk_sched_attach_in(struct stk_sched_attachment *a, const struct stk_sched_request *req, struct stk_bpf *skel,
			char *err, size_t len)
{
	struct stk_sched_programs p;

	programs_of(req, a->mech, &p);
	a->skel = skel;
	a->owns_skel = false;
	if (attach_loaded(a, &p, a->mech, err, len) == 0)
		return 0;
	release(a);
	return -1;
}

struct stk_bpf *stk_sched_skeleton(const struct stk_sched_attachment *a)
{
	return a->skel;
}

enum stk_sched_mech stk_sched_mechanism(const struct stk_sched_attachment *a)
{
	return a->mech;
}

const char *stk_sched_tried(const struct stk_sched_attachment *a)
{
	return a->tried;
}

const char *stk_sched_target(const struct stk_sched_attachment *a)
{
	return a->target;
}

void stk_sched_detach(struct stk_sched_attachment *a)
{
	if (!a)
		return;
	bpf_link__destroy(a->link);
	bpf_link__destroy(a->free_link);
	a->link = a->free_link = NULL;
}

void stk_sched_attachment_free(struct stk_sched_attachment *a)
{
	if (!a)
		return;
	release(a);
	free(a);
}
