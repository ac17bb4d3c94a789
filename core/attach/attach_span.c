/* --span targets found and attached: see attach_span.h. */
#include "core/attach/attach_span.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/event_types.h"
#include "core/base/name_list.h"
#include "core/probe/usdt_notes.h"
#include "core/probe/user_probe.h"

_Static_assert(STK_SPAN_MAX == STK_MAX_SPANS, "a program pair per --span slot");

struct span_target {
	struct stk_span_spec spec;
	struct stk_user_file file;
	uint64_t offset; /* a function's entry in the file */
	char programs[2][40];
};

struct stk_span_targets {
	struct span_target t[STK_SPAN_MAX];
	size_t n;
	pid_t pid;
	const char *names[2 * STK_SPAN_MAX + 1];
	struct bpf_link *links[2 * STK_SPAN_MAX];
	size_t n_links;
};

static int find_function(struct span_target *t, char *err, size_t len)
{
	struct stk_name_match m;
	struct stk_user_func_list funcs = { 0 };
	int ret = -1;

	if (stk_name_match_init(&m, t->spec.start, false, err, len))
		return -1;
	if (stk_user_functions(t->file.path, &m, &funcs, err, len) == 0) {
		if (funcs.n == 0) {
			snprintf(err, len, "--span: no function %s in %s", t->spec.start, t->file.display);
		} else {
			t->offset = funcs.funcs[0].offset;
			ret = 0;
		}
	}
	stk_user_func_list_free(&funcs);
	stk_name_match_free(&m);
	return ret;
}

/* Both probes of a USDT pair must be in the file. */
static int find_usdt(struct span_target *t, char *err, size_t len)
{
	const char *names[2] = { t->spec.start, t->spec.end };
	struct stk_name_match provider;
	int ret = 0;

	if (stk_name_match_init(&provider, t->spec.provider, false, err, len))
		return -1;
	for (int i = 0; i < 2 && ret == 0; i++) {
		struct stk_name_match m;
		struct stk_name_list found = { 0 };

		if (stk_name_match_init(&m, names[i], false, err, len)) {
			ret = -1;
			break;
		}
		ret = stk_usdt_probes(t->file.path, &provider, &m, &found, err, len);
		if (ret == 0 && found.n == 0) {
			snprintf(err, len, "--span: no USDT probe %s:%s in %s", t->spec.provider, names[i], t->file.display);
			ret = -1;
		}
		stk_name_list_free(&found);
		stk_name_match_free(&m);
	}
	stk_name_match_free(&provider);
	return ret;
}

struct stk_span_targets *stk_span_find(const struct stk_span_spec *specs, size_t n, pid_t pid, char *err, size_t len)
{
	struct stk_span_targets *s = calloc(1, sizeof(*s));
	char why[1024];

	if (!s || n > STK_SPAN_MAX) {
		snprintf(err, len, s ? "at most %d spans" : "out of memory", STK_SPAN_MAX);
		free(s);
		return NULL;
	}
	s->pid = pid;
	for (size_t i = 0; i < n; i++, s->n++) {
		struct span_target *t = &s->t[i];

		t->spec = specs[i];
		if (stk_user_file_resolve(t->spec.lib, pid, &t->file, why, sizeof(why)) ||
		    (t->spec.usdt ? find_usdt(t, why, sizeof(why)) : find_function(t, why, sizeof(why)))) {
			snprintf(err, len, "%s%s", strncmp(why, "--span", 6) ? "--span: " : "", why);
			stk_span_targets_free(s);
			return NULL;
		}
		snprintf(t->programs[0], sizeof(t->programs[0]), t->spec.usdt ? "stk_span_usdt_start_%zu" : "stk_span_enter_%zu", i);
		snprintf(t->programs[1], sizeof(t->programs[1]), t->spec.usdt ? "stk_span_usdt_end_%zu" : "stk_span_exit_%zu", i);
		s->names[2 * i] = t->programs[0];
		s->names[2 * i + 1] = t->programs[1];
	}
	return s;
}

const char *const *stk_span_programs(const struct stk_span_targets *t)
{
	return t->names;
}

int stk_span_usdt(const struct stk_span_targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->t[i].spec.usdt)
			return 1;
	return 0;
}

/* One program attached to target t (which: 0 opens, 1 closes). 0, or -1 with errno. */
static int attach_one(struct stk_span_targets *s, struct stk_bpf *skel, const struct span_target *t, int which)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, t->programs[which]);
	pid_t pid = s->pid > 0 ? s->pid : -1;
	struct bpf_link *link;

	if (!prog) {
		errno = ENOENT;
		return -1;
	}
	if (t->spec.usdt) {
		link = bpf_program__attach_usdt(prog, pid, t->file.path, t->spec.provider,
						which ? t->spec.end : t->spec.start, NULL);
	} else {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = which == 1);
		link = bpf_program__attach_uprobe_opts(prog, pid, t->file.path, (size_t)t->offset, &o);
	}
	if (!link)
		return -1;
	s->links[s->n_links++] = link;
	return 0;
}

int stk_span_attach(struct stk_span_targets *s, struct stk_bpf *skel, char *err, size_t len)
{
	stk_span_detach(s);
	for (size_t i = 0; i < s->n; i++) {
		const struct span_target *t = &s->t[i];
		struct stk_span_config cfg = { .arg = t->spec.arg < 0 ? 0 : (uint32_t)t->spec.arg + 1 };
		uint32_t slot = (uint32_t)i;

		if (bpf_map__update_elem(skel->maps.stk_span_config, &slot, sizeof(slot), &cfg, sizeof(cfg), 0)) {
			snprintf(err, len, "--span %s: writing its configuration failed: %s", t->spec.label, strerror(errno));
			return -1;
		}
		for (int which = 0; which < 2; which++) {
			if (attach_one(s, skel, t, which)) {
				snprintf(err, len, "--span %s: attaching to %s failed: %s", t->spec.label, t->file.display,
					 strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

void stk_span_detach(struct stk_span_targets *s)
{
	for (size_t i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	s->n_links = 0;
}

void stk_span_targets_free(struct stk_span_targets *s)
{
	if (!s)
		return;
	stk_span_detach(s);
	free(s);
}
