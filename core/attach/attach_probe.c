#include "core/attach/attach_probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "core/bpf/bpf_object.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/probe_guard.h"
#include "core/ladder/climb.h"
#include "stk.skel.h"

#define PROGRESS_AFTER_NS 1000000000LL

int stk_probe_set_load(struct stk_probe_set *s, const struct stk_probe_load *load, const char *program,
		       const char *fentry_target, char *why, size_t len)
{
	char name[128];
	const char *programs[2] = { name, NULL };
	struct stk_bpf_selection sel = { .programs = programs, .maps = load->maps,
					 .extra_programs = load->extra_programs, .extra_maps = load->extra_maps,
					 .btf_custom_path = load->btf_custom_path };
	char err[256];
	int ret;

	snprintf(name, sizeof(name), "%s%s", program, load->program_suffix ? load->program_suffix : "");
	program = name;

	s->progress = load->progress;
	s->owns_skel = true;
	s->skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!s->skel) {
		snprintf(why, len, "%s", err);
		return -1;
	}
	s->prog = bpf_object__find_program_by_name(s->skel->obj, program);
	if (!s->prog) {
		snprintf(why, len, "program %s not built in", program);
		goto fail;
	}
	if (fentry_target && (ret = bpf_program__set_attach_target(s->prog, 0, fentry_target))) {
		snprintf(why, len, "no BTF for %s: %s", fentry_target, strerror(-ret));
		goto fail;
	}
	if (load->before_load && load->before_load(s->skel, load->ctx)) {
		snprintf(why, len, "sizing maps failed: %s", strerror(errno));
		goto fail;
	}
	ret = stk_bpf__load(s->skel);
	if (ret) {
		snprintf(why, len, "load failed: %s", strerror(ret < 0 ? -ret : ret));
		goto fail;
	}
	if (load->after_load && load->after_load(s->skel, load->ctx)) {
		snprintf(why, len, "writing the configuration failed: %s", strerror(errno));
		goto fail;
	}
	s->attach_start_ns = stk_now_ns(CLOCK_MONOTONIC);
	return 0;
fail:
	stk_probe_set_release(s);
	return -1;
}

int stk_probe_set_use(struct stk_probe_set *s, struct stk_bpf *skel, const char *program, char *err, size_t len)
{
	s->skel = skel;
	s->owns_skel = false;
	s->prog = bpf_object__find_program_by_name(skel->obj, program);
	if (s->prog)
		return 0;
	snprintf(err, len, "program %s not in the object", program);
	return -1;
}

int stk_probe_set_add_link(struct stk_probe_set *s, struct bpf_link *link)
{
	if (!link)
		return -1;
	if (stk_grow((void **)&s->links, &s->cap_links, s->n_links + 1, sizeof(*s->links))) {
		bpf_link__destroy(link);
		errno = ENOMEM;
		return -1;
	}
	s->links[s->n_links++] = link;
	return 0;
}

int stk_probe_set_add_fd(struct stk_probe_set *s, int fd)
{
	if (stk_grow((void **)&s->fds, &s->cap_fds, s->n_fds + 1, sizeof(*s->fds))) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	s->fds[s->n_fds++] = fd;
	return 0;
}

void stk_probe_set_progress(struct stk_probe_set *s, size_t done, size_t total)
{
	if (!s->progress || total < 2)
		return;
	if (!s->progress_shown && stk_now_ns(CLOCK_MONOTONIC) - s->attach_start_ns < PROGRESS_AFTER_NS)
		return;
	/* every 16th, and the last, so a slow attach shows it is moving without flooding */
	if (s->progress_shown && done % 16 && done != total)
		return;
	fprintf(stderr, "\rstackcount: attached %zu of %zu%s", done, total, done == total ? "\n" : "");
	fflush(stderr);
	s->progress_shown = done != total;
}

int stk_probe_set_guard(struct stk_probe_set *s)
{
	if (s->guarded)
		return 0;
	s->guard_fd = stk_probe_guard_start();
	s->guarded = s->guard_fd >= 0;
	return s->guarded ? 0 : -1;
}

struct climb_ctx {
	struct stk_probe_set *s;
	int (*attempt)(void *ctx, const struct stk_rung *r, char *why, size_t len);
	void *ctx;
};

static int attempt_released(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	struct climb_ctx *cc = ctx;

	if (cc->attempt(cc->ctx, r, why, len) == 0)
		return 0;
	stk_probe_set_release(cc->s);
	return -1;
}

int stk_probe_set_climb(struct stk_probe_set *s, int cls, const struct stk_rung *const *order, size_t n,
			const char *forced, int (*attempt)(void *ctx, const struct stk_rung *r, char *why, size_t len),
			void *ctx, const char *none_msg, char *err, size_t len)
{
	struct climb_ctx cc = { s, attempt, ctx };
	struct stk_climb c = {
		.cls = (enum stk_attach_class)cls, .forced = forced, .forced_opt = "--mechanism",
		.attempt = attempt_released, .ctx = &cc,
	};
	int ret = stk_climb(&c, order, n, none_msg, err, len);

	snprintf(s->tried, sizeof(s->tried), "%s", c.tried);
	if (ret == 0)
		s->mechanism = c.chosen->name;
	return ret;
}

void stk_probe_set_detach(struct stk_probe_set *s)
{
	if (s->progress_shown) {
		fputc('\n', stderr);
		s->progress_shown = false;
	}
	for (size_t i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	/* link fds before program fds; closing either detaches */
	for (size_t i = s->n_fds; i-- > 0;)
		close(s->fds[i]);
	/* libbpf removed its legacy events with the links: the guard finds nothing and exits */
	if (s->guarded)
		close(s->guard_fd);
	s->guarded = false;
	free(s->links);
	free(s->fds);
	s->links = NULL;
	s->fds = NULL;
	s->n_links = s->cap_links = s->n_fds = s->cap_fds = 0;
}

void stk_probe_set_release(struct stk_probe_set *s)
{
	stk_probe_set_detach(s);
	if (s->owns_skel)
		stk_bpf__destroy(s->skel);
	s->skel = NULL;
	s->prog = NULL;
	s->n_targets = 0;
}
