#include "core/attach/attach_tracepoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "core/ladder/ladder.h"

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

/* Loads program and attaches it to every event with attach_one. 0, or -1 with why set and nothing attached. */
static int attach_all(struct stk_probe_set *s, const struct stk_probe_load *load, const char *program,
		      attach_one_fn attach_one, char *const *names, size_t n, char *why, size_t len)
{
	char cat[256];
	const char *event;

	if (stk_probe_set_load(s, load, program, NULL, why, len))
		return -1;
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
		return attach_all(t->s, t->load, "stk_sc_tracepoint", attach_classic_one, t->names, t->n, why, len);
	for (size_t i = 0; i < t->n; i++) {
		if (split_name(t->names[i], cat, sizeof(cat), &event) == 0 && strcmp(cat, "syscalls") == 0) {
			snprintf(why, len, "%s is made from raw_syscalls, not a tracepoint of its own", t->names[i]);
			return -1;
		}
	}
	return attach_all(t->s, t->load, "stk_sc_raw_tp", attach_raw_one, t->names, t->n, why, len);
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
