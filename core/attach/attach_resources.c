#include "core/attach/attach_resources.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>

#include "core/attach/attach_perf.h"
#include "core/base/trace_format.h"
#include "core/bpf/bpf_object.h"
#include "stk.skel.h"

/* The programs of a source's rung: those that take stacks come in --unwind twins. */
struct rung_programs {
	enum stk_res_source source;
	int mech;
	const char *stacked[2];
	const char *plain[2];
};

static const struct rung_programs rung_programs[] = {
	{ .source = STK_RES_SRC_MEMORY, .mech = STK_RES_TP_BTF, .stacked = { "stk_res_rss_tp_btf" } },
	{ .source = STK_RES_SRC_MEMORY, .mech = STK_RES_RAW_TP, .stacked = { "stk_res_rss_raw_tp" } },
	{ .source = STK_RES_SRC_MEMORY, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_rss_tp" } },
	{ .source = STK_RES_SRC_FAULTS, .mech = STK_RES_PERF_EVENT, .stacked = { "stk_res_faults_perf" } },
	{ .source = STK_RES_SRC_FAULTS, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_faults_tp" } },
	{ .source = STK_RES_SRC_BLOCK, .mech = STK_RES_RAW_TP, .stacked = { "stk_res_getrq_raw_tp" },
	  .plain = { "stk_res_issue_raw_tp", "stk_res_done_raw_tp" } },
	{ .source = STK_RES_SRC_BLOCK, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_getrq_tp" },
	  .plain = { "stk_res_issue_tp", "stk_res_done_tp" } },
	{ .source = STK_RES_SRC_FILES, .mech = STK_RES_RAW_TP, .stacked = { "stk_res_sys_exit_raw_tp" } },
	{ .source = STK_RES_SRC_FILES, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_sys_exit_tp" } },
	{ .source = STK_RES_SRC_SOCKETS, .mech = STK_RES_RAW_TP, .stacked = { "stk_res_send_raw_tp", "stk_res_recv_raw_tp" } },
	{ .source = STK_RES_SRC_SOCKETS, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_send_tp", "stk_res_recv_tp" } },
	/* the sys_exit program counts sockets too when told (one program serves files and sockets) */
	{ .source = STK_RES_SRC_SOCKETS, .mech = STK_RES_SYS_EXIT, .stacked = { "stk_res_sys_exit_raw_tp" } },
	{ .source = STK_RES_SRC_SYSCALLS, .mech = STK_RES_RAW_TP, .stacked = { "stk_res_syscall_raw_tp" },
	  .plain = { "stk_res_sys_enter_raw_tp" } },
	{ .source = STK_RES_SRC_SYSCALLS, .mech = STK_RES_TRACEPOINT, .stacked = { "stk_res_syscall_tp" },
	  .plain = { "stk_res_sys_enter_tp" } },
};

#define FAULTS_PROGRAM "stk_res_faults_perf"

static const struct rung_programs *programs_of(enum stk_res_source s, int mech)
{
	for (size_t i = 0; i < sizeof(rung_programs) / sizeof(rung_programs[0]); i++)
		if (rung_programs[i].source == s && rung_programs[i].mech == mech)
			return &rung_programs[i];
	return NULL;
}

static void list_add(struct stk_res_programs *l, const char *name, const char *suffix)
{
	char full[64];

	snprintf(full, sizeof(full), "%s%s", name, suffix ? suffix : "");
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->names[i], full) == 0)
			return;
	if (l->n == STK_RES_MAX_PROGRAMS)
		return;
	snprintf(l->names[l->n], sizeof(l->names[0]), "%s", full);
	l->ptrs[l->n] = l->names[l->n];
	l->ptrs[++l->n] = NULL;
}

static void list_add_rung(struct stk_res_programs *l, const struct rung_programs *p, const char *suffix)
{
	for (size_t i = 0; i < 2; i++) {
		if (p->stacked[i])
			list_add(l, p->stacked[i], suffix);
		if (p->plain[i])
			list_add(l, p->plain[i], NULL);
	}
}

/* One field of a tracepoint's record, checked to be as wide as the program reads it. */
static int field_at(const char *event, const char *name, unsigned size, uint16_t *off, char *why, size_t len)
{
	struct stk_trace_field f;

	if (stk_trace_event_field(event, name, &f, why, len))
		return -1;
	if (f.size < size || f.offset > UINT16_MAX) {
		snprintf(why, len, "tracepoint %s's field %s is %u bytes at %u, not as stk reads it", event, name, f.size,
			 f.offset);
		return -1;
	}
	*off = (uint16_t)f.offset;
	return 0;
}

/* Where the classic records of source s keep what its programs read. 0, or -1 with why. */
static int read_offsets(enum stk_res_source s, struct stk_res_offsets *o, char *why, size_t len)
{
	switch (s) {
	case STK_RES_SRC_MEMORY:
		return field_at("kmem/rss_stat", "mm_id", 4, &o->rss_mm_id, why, len) ||
		       field_at("kmem/rss_stat", "curr", 4, &o->rss_curr, why, len) ||
		       field_at("kmem/rss_stat", "member", 4, &o->rss_member, why, len) ||
		       field_at("kmem/rss_stat", "size", 8, &o->rss_size, why, len) ? -1 : 0;
	case STK_RES_SRC_BLOCK:
		return field_at("block/block_getrq", "sector", 8, &o->getrq_sector, why, len) ||
		       field_at("block/block_getrq", "rwbs", 8, &o->getrq_rwbs, why, len) ||
		       field_at("block/block_rq_issue", "sector", 8, &o->issue_sector, why, len) ||
		       field_at("block/block_rq_issue", "nr_sector", 4, &o->issue_nr_sector, why, len) ||
		       field_at("block/block_rq_issue", "rwbs", 8, &o->issue_rwbs, why, len) ||
		       field_at("block/block_rq_issue", "dev", 4, &o->issue_dev, why, len) ||
		       field_at("block/block_rq_complete", "sector", 8, &o->done_sector, why, len) ||
		       field_at("block/block_rq_complete", "rwbs", 8, &o->done_rwbs, why, len) ? -1 : 0;
	case STK_RES_SRC_SOCKETS:
		/* send and recv are one class of event: one layout */
		return field_at("sock/sock_send_length", "family", 2, &o->sock_family, why, len) ||
		       field_at("sock/sock_send_length", "protocol", 2, &o->sock_protocol, why, len) ||
		       field_at("sock/sock_send_length", "ret", 4, &o->sock_ret, why, len) ||
		       field_at("sock/sock_send_length", "flags", 4, &o->sock_flags, why, len) ? -1 : 0;
	default:
		return 0;
	}
}

/* Attaches every listed program: perf events for page faults, each tracepoint's own link otherwise. */
static int attach_programs(struct stk_res_attachment *a, const struct stk_res_attach_request *r,
			   const char *const *names, char *why, size_t len)
{
	for (; *names; names++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(a->skel->obj, *names);
		struct bpf_link *link;

		if (!prog) {
			snprintf(why, len, "program %s not built in", *names);
			return -1;
		}
		if (strncmp(*names, FAULTS_PROGRAM, strlen(FAULTS_PROGRAM)) == 0) {
			const struct stk_sampling s = { .by_period = true, .value = r->want->every[STK_RES_FAULTS],
							.software_event = PERF_COUNT_SW_PAGE_FAULTS };
			size_t attached;

			a->faults = stk_attach_cpu_sampling(prog, r->cpus, r->n_cpus, &s, &attached, why, len);
			if (!a->faults)
				return -1;
			continue;
		}
		if (a->n_links == STK_RES_MAX_LINKS) {
			snprintf(why, len, "more programs than links kept");
			return -1;
		}
		link = bpf_program__attach(prog);
		if (!link) {
			snprintf(why, len, "attaching %s failed: %s", bpf_program__section_name(prog), strerror(errno));
			return -1;
		}
		a->links[a->n_links++] = link;
	}
	return 0;
}

/* Opens, sizes, loads and attaches programs. 0, or -1 with why and nothing left. */
static int load_and_attach(struct stk_res_attachment *a, const struct stk_res_attach_request *r,
			   const char *const *programs, bool probe, char *why, size_t len)
{
	const struct stk_bpf_selection sel = {
		.programs = programs, .maps = r->maps, .btf_custom_path = r->btf_custom_path,
		/* a trial's programs count through the shared maps too (tiny: before_load sizes them) */
		.extra_maps = r->extra_maps, .extra_programs = probe ? NULL : r->extra_programs,
	};
	char err[256];
	int ret;

	a->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	a->owns_skel = true;
	if (!a->skel) {
		snprintf(why, len, "%s", err);
		return -1;
	}
	if (r->before_load && r->before_load(a->skel, probe, r->ctx)) {
		snprintf(why, len, "sizing maps failed: %s", strerror(errno));
		goto fail;
	}
	ret = stk_bpf__load(a->skel);
	if (ret) {
		snprintf(why, len, "load failed: %s", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	if (!probe && r->after_load && r->after_load(a->skel, a, r->ctx)) {
		snprintf(why, len, "writing the configuration failed: %s", strerror(errno));
		goto fail;
	}
	if (attach_programs(a, r, programs, why, len) == 0)
		return 0;
fail:
	stk_res_attachment_release(a);
	return -1;
}

/* Rung rg of source s, tried end to end with its frame-pointer programs. 0, or -1 with why. */
static int try_rung(const struct stk_res_attach_request *r, enum stk_res_source s, const struct stk_rung *rg,
		    struct stk_res_offsets *off, char *why, size_t len)
{
	const struct rung_programs *p = programs_of(s, rg->id);
	const char *pre = stk_rung_precondition(rg, &r->env, why, len);
	struct stk_res_attachment trial = { 0 };
	struct stk_res_programs l = { 0 };

	if (pre) {
		if (pre != why)
			snprintf(why, len, "%s", pre);
		return -1;
	}
	if (!p) {
		snprintf(why, len, "no programs for it");
		return -1;
	}
	if (rg->id == STK_RES_TRACEPOINT && read_offsets(s, off, why, len))
		return -1;
	list_add_rung(&l, p, NULL);
	if (load_and_attach(&trial, r, l.ptrs, true, why, len))
		return -1;
	stk_res_attachment_release(&trial);
	return 0;
}

static void passed_over(char *tried, size_t size, const char *name, const char *why)
{
	size_t used = strlen(tried);
	int w = snprintf(tried + used, size - used, "%s%s: %s", used ? "; " : "", name, why);

	if (w < 0 || (size_t)w >= size - used) /* cut at a whole entry */
		tried[used] = '\0';
}

/* Source s's ladder, in order (or its forced rung): a->chosen[s], or NULL with the reasons. -1: a forced rung failed. */
static int climb_source(struct stk_res_attachment *a, const struct stk_res_attach_request *r, enum stk_res_source s,
			char *err, size_t len)
{
	const struct stk_ladder *ladder = stk_ladder_for(stk_res_source_class(s));
	const char *forced = r->want->forced[s];
	char why[512];

	a->tried[s][0] = '\0';
	for (size_t i = 0; i < ladder->n; i++) {
		const struct stk_rung *rg = &ladder->rungs[i];

		if (forced && strcmp(rg->name, forced) != 0)
			continue;
		why[0] = '\0';
		if (try_rung(r, s, rg, &a->offsets, why, sizeof(why)) == 0) {
			a->chosen[s] = rg;
			return 0;
		}
		if (forced) {
			char kinds[64];

			stk_res_source_kinds(r->want, s, false, kinds, sizeof(kinds));
			snprintf(err, len, "--mechanism %s=%s: not available here: %s", kinds, forced, why);
			return -1;
		}
		passed_over(a->tried[s], sizeof(a->tried[s]), rg->name, why);
	}
	return 0;
}

int stk_res_choose(struct stk_res_attachment *a, const struct stk_res_attach_request *r, char *err, size_t len)
{
	bool any = false;

	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (!stk_res_request_wants(r->want, (enum stk_res_source)s))
			continue;
		if (climb_source(a, r, (enum stk_res_source)s, err, len))
			return -1;
		any |= a->chosen[s] != NULL;
	}
	if (!any) {
		snprintf(err, len, "no kind asked for can be measured on this kernel (see the lines above)");
		return -1;
	}
	return 0;
}

void stk_res_programs(const struct stk_res_attachment *a, const char *suffix, struct stk_res_programs *l)
{
	*l = (struct stk_res_programs){ 0 };
	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		const struct stk_rung *rg = a->chosen[s];

		/* files' sys_exit program counts the sockets too */
		if (!rg || (s == STK_RES_SRC_SOCKETS && rg->id == STK_RES_SYS_EXIT && a->chosen[STK_RES_SRC_FILES]))
			continue;
		list_add_rung(l, programs_of((enum stk_res_source)s, rg->id), suffix);
	}
}

int stk_res_attach_in(struct stk_res_attachment *a, const struct stk_res_attach_request *r, struct stk_bpf *skel,
		      char *err, size_t len)
{
	struct stk_res_programs l;

	stk_res_programs(a, r->program_suffix, &l);
	a->skel = skel;
	a->owns_skel = false;
	if (attach_programs(a, r, l.ptrs, err, len) == 0)
		return 0;
	stk_res_detach(a);
	return -1;
}

int stk_res_attach(struct stk_res_attachment *a, const struct stk_res_attach_request *r, char *err, size_t len)
{
	struct stk_res_programs l;
	char why[512];

	if (stk_res_choose(a, r, err, len))
		return -1;
	stk_res_programs(a, r->program_suffix, &l);
	if (load_and_attach(a, r, l.ptrs, false, why, sizeof(why))) {
		snprintf(err, len, "loading the chosen programs together failed: %s", why);
		return -1;
	}
	return 0;
}

void stk_res_detach(struct stk_res_attachment *a)
{
	for (size_t i = 0; i < a->n_links; i++)
		bpf_link__destroy(a->links[i]);
	a->n_links = 0;
	stk_perf_attachment_destroy(a->faults);
	a->faults = NULL;
}

void stk_res_attachment_release(struct stk_res_attachment *a)
{
	stk_res_detach(a);
	if (a->owns_skel)
		stk_bpf__destroy(a->skel);
	a->skel = NULL;
}
