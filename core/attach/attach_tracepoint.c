#include "core/attach/attach_tracepoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "core/ladder/ladder.h"
#include "stk.skel.h"

/* "category:event" -> category (in cat) and event. 0, or -1 when malformed. */
static int split_name(const char *name, char *cat, size_t len, const char **event)
{
	const char *colon = strchr(name, ':');

	if (!colon || (size_t)(colon - name) >= len)
		return -1;
	snprintf(cat, len, "%.*s", (int)(colon - name), name);
	*event = colon + 1;
	return 0;
}

/* stackcount's programs for the two mechanisms (one per --unwind rung: these names with its suffix). */
#define RAW_PROGRAM "stk_sc_raw_tp"
#define CLASSIC_PROGRAM "stk_sc_tracepoint"

typedef struct bpf_link *(*attach_one_fn)(const struct bpf_program *prog, const char *cat, const char *event);

/*
 * raw_tp (4.17+): the program runs straight from the tracepoint, with no
 * perf record built for it first. Only real tracepoints have one: the
 * syscalls:* events are made by the kernel from raw_syscalls:sys_enter/exit.
 */
static struct bpf_link *attach_raw_one(const struct bpf_program *prog, const char *cat, const char *event)
{
	(void)cat;
	return bpf_program__attach_raw_tracepoint(prog, event);
}

/* The classic tracepoint program, through perf: every event tracefs lists. */
static struct bpf_link *attach_classic_one(const struct bpf_program *prog, const char *cat, const char *event)
{
	return bpf_program__attach_tracepoint(prog, cat, event);
}

/* Attaches s->prog to every event with attach_one. 0, or -1 with why set and nothing attached. */
static int attach_events(struct stk_probe_set *s, attach_one_fn attach_one, char *const *names, size_t n, char *why,
			 size_t len)
{
	char cat[256];
	const char *event;

	for (size_t i = 0; i < n; i++) {
		if (split_name(names[i], cat, sizeof(cat), &event))
			continue;
		if (stk_probe_set_add_link(s, attach_one(s->prog, cat, event))) {
			snprintf(why, len, "attaching to %s failed: %s", names[i], strerror(errno));
			stk_probe_set_release(s);
			return -1;
		}
		stk_probe_set_progress(s, i + 1, n);
	}
	return 0;
}

/* Loads program and attaches it to every event with attach_one. 0, or -1 with why set and nothing attached. */
static int attach_all(struct stk_probe_set *s, const struct stk_probe_load *load, const char *program,
		      attach_one_fn attach_one, char *const *names, size_t n, char *why, size_t len)
{
	if (stk_probe_set_load(s, load, program, NULL, why, len))
		return -1;
	return attach_events(s, attach_one, names, n, why, len);
}

struct tp_ctx {
	struct stk_probe_set *s;
	const struct stk_probe_load *load;
	char *const *names;
	size_t n;
};

static int try_rung(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	const struct tp_ctx *t = ctx;
	char cat[256];
	const char *event;

	if (r->id == STK_TP_CLASSIC)
		return attach_all(t->s, t->load, CLASSIC_PROGRAM, attach_classic_one, t->names, t->n, why, len);
	for (size_t i = 0; i < t->n; i++) {
		if (split_name(t->names[i], cat, sizeof(cat), &event) == 0 && strcmp(cat, "syscalls") == 0) {
			snprintf(why, len, "%s is made from raw_syscalls, not a tracepoint of its own", t->names[i]);
			return -1;
		}
	}
	return attach_all(t->s, t->load, RAW_PROGRAM, attach_raw_one, t->names, t->n, why, len);
}

int stk_tracepoint_attach(struct stk_probe_set *s, const struct stk_probe_load *load, char *const *names, size_t n,
			  const char *forced, char *err, size_t len)
{
	const struct stk_rung *order[4];
	size_t k = stk_ladder_order(STK_ATTACH_TRACEPOINT, n, 0, order, 4);
	struct tp_ctx t = { s, load, names, n };

	if (stk_probe_set_climb(s, STK_ATTACH_TRACEPOINT, order, k, forced, try_rung, &t,
				"no tracepoint mechanism works on this kernel", err, len))
		return -1;
	s->n_targets = n;
	return 0;
}

const char *stk_tracepoint_program(const char *mechanism)
{
	const struct stk_rung *r = stk_rung_by_name(STK_ATTACH_TRACEPOINT, mechanism);

	return r && r->id == STK_TP_RAW_TP ? RAW_PROGRAM : CLASSIC_PROGRAM;
}

int stk_tracepoint_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism,
			     const char *program, char *const *names, size_t n, char *err, size_t len)
{
	const struct stk_rung *r = stk_rung_by_name(STK_ATTACH_TRACEPOINT, mechanism);

	if (stk_probe_set_use(s, skel, program, err, len))
		return -1;
	if (attach_events(s, r && r->id == STK_TP_RAW_TP ? attach_raw_one : attach_classic_one, names, n, err, len))
		return -1;
	s->mechanism = mechanism;
	s->n_targets = n;
	return 0;
}
