#include "core/attach/attach_tracepoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

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

static int attach_raw(struct stk_probe_set *s, const struct stk_probe_load *load, char *const *names, size_t n,
		      char *why, size_t len)
{
	char cat[256];
	const char *event;

	for (size_t i = 0; i < n; i++) {
		if (split_name(names[i], cat, sizeof(cat), &event) == 0 && strcmp(cat, "syscalls") == 0) {
			snprintf(why, len, "%s is made from raw_syscalls, not a tracepoint of its own", names[i]);
			return -1;
		}
	}
	if (attach_all(s, load, "stk_sc_raw_tp", attach_raw_one, names, n, why, len))
		return -1;
	s->mechanism = "raw_tp";
	return 0;
}

int stk_tracepoint_attach(struct stk_probe_set *s, const struct stk_probe_load *load, char *const *names, size_t n,
			  const char *forced, char *err, size_t len)
{
	char why[512];

	if (!forced || strcmp(forced, "raw_tp") == 0) {
		if (attach_raw(s, load, names, n, why, sizeof(why)) == 0) {
			s->n_targets = n;
			return 0;
		}
		if (forced) {
			snprintf(err, len, "raw_tp: %s", why);
			return -1;
		}
		stk_probe_set_passed_over(s, "raw_tp", why);
	}
	if (attach_all(s, load, "stk_sc_tracepoint", attach_classic_one, names, n, why, sizeof(why))) {
		snprintf(err, len, "tracepoint: %s", why);
		return -1;
	}
	s->mechanism = "tracepoint";
	s->n_targets = n;
	return 0;
}
