#include "core/attach/attach_uprobe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "core/base/untrusted_file.h"
#include "core/ladder/ladder.h"

/* The program of each mechanism (one per --unwind rung: these names with its suffix). */
static const char *const programs[] = {
	[STK_UFUNC_UPROBE_MULTI] = "stk_sc_uprobe_multi",
	[STK_UFUNC_UPROBE] = "stk_sc_uprobe",
};
#define USDT_PROGRAM "stk_sc_usdt"

static int attach_uprobe_multi(struct stk_probe_set *s, const char *path, const struct stk_user_func_list *funcs,
			       pid_t pid, char *why, size_t len)
{
	unsigned long *offsets = calloc(funcs->n, sizeof(*offsets));
	int ret = 0;

	if (!offsets) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < funcs->n; i++)
		offsets[i] = (unsigned long)funcs->funcs[i].offset;
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = offsets, .cnt = funcs->n);
	if (stk_probe_set_add_link(s, bpf_program__attach_uprobe_multi(s->prog, pid > 0 ? pid : -1, path, NULL, &o))) {
		snprintf(why, len, "attach failed: %s", strerror(errno));
		ret = -1;
	}
	free(offsets);
	return ret;
}

static int attach_uprobes(struct stk_probe_set *s, const char *path, const struct stk_user_func_list *funcs,
			  pid_t pid, char *why, size_t len)
{
	for (size_t i = 0; i < funcs->n; i++) {
		struct bpf_link *l = bpf_program__attach_uprobe_opts(s->prog, pid > 0 ? pid : -1, path,
								     (size_t)funcs->funcs[i].offset, NULL);
		if (stk_probe_set_add_link(s, l)) {
			snprintf(why, len, "attach to %s failed: %s", funcs->funcs[i].name, strerror(errno));
			return -1;
		}
		stk_probe_set_progress(s, i + 1, funcs->n);
	}
	return 0;
}

/* Without the uprobe PMU (before 4.17) libbpf writes uprobe_events: guard them. 0, or -1 with why. */
static int guard_uprobe_events(struct stk_probe_set *s, enum stk_ufunc_mech m, char *why, size_t len)
{
	if (m != STK_UFUNC_UPROBE || !access("/sys/bus/event_source/devices/uprobe/type", F_OK) ||
	    stk_probe_set_guard(s) == 0)
		return 0;
	snprintf(why, len, "starting the uprobe_events cleanup guard failed");
	return -1;
}

/* s->prog (loaded) attached to every function by mechanism m; nothing left attached on failure. */
static int attach_loaded(struct stk_probe_set *s, enum stk_ufunc_mech m, const char *path,
			 const struct stk_user_func_list *funcs, pid_t pid, char *why, size_t len)
{
	int ret = m == STK_UFUNC_UPROBE_MULTI ? attach_uprobe_multi(s, path, funcs, pid, why, len)
					      : attach_uprobes(s, path, funcs, pid, why, len);

	if (ret)
		stk_probe_set_release(s);
	return ret;
}

struct uprobe_ctx {
	struct stk_probe_set *s;
	const struct stk_probe_load *load;
	const char *path;
	const struct stk_user_func_list *funcs;
	pid_t pid;
};

static int try_rung(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	const struct uprobe_ctx *u = ctx;
	enum stk_ufunc_mech m = (enum stk_ufunc_mech)r->id;

	if (guard_uprobe_events(u->s, m, why, len) || stk_probe_set_load(u->s, u->load, programs[m], NULL, why, len))
		return -1;
	return attach_loaded(u->s, m, u->path, u->funcs, u->pid, why, len);
}

/*
 * The kernel resolves the path it is given against stk's own root: a
 * "/proc/PID/root/..." path with a symlink planted inside a container
 * would name a host file. The file opened inside its root is handed
 * over as /proc/self/fd/N instead; its probes hold the inode after close.
 * The descriptor (close it once attached), or -1 with err.
 */
static int open_target(const char *path, char *by_fd, size_t by_fd_len, char *err, size_t len)
{
	const struct stk_untrusted_rules any = { 0 };
	int fd = stk_untrusted_open(path, &any);

	if (fd < 0) {
		snprintf(err, len, "cannot open %s: %s", path, stk_untrusted_strerror(fd));
		return -1;
	}
	snprintf(by_fd, by_fd_len, "/proc/self/fd/%d", fd);
	return fd;
}

int stk_uprobe_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		      const struct stk_user_func_list *funcs, pid_t pid, const char *forced, char *err, size_t len)
{
	const struct stk_rung *order[4];
	size_t n = stk_ladder_order(STK_ATTACH_USER_FUNCTION, funcs->n, 0, order, 4);
	char none[4200], by_fd[64];
	int ret, fd = open_target(path, by_fd, sizeof(by_fd), err, len);

	if (fd < 0)
		return -1;
	struct uprobe_ctx u = { s, load, by_fd, funcs, pid };
	snprintf(none, sizeof(none), "cannot attach uprobes to %s", path);
	ret = stk_probe_set_climb(s, STK_ATTACH_USER_FUNCTION, order, n, forced, try_rung, &u, none, err, len);
	close(fd);
	if (ret)
		return -1;
	s->n_targets = funcs->n;
	return 0;
}

/* s->prog (loaded) attached to every USDT probe ("provider:name"); nothing left attached on failure. */
static int attach_usdt_loaded(struct stk_probe_set *s, const char *path, char *const *probes, size_t n, pid_t pid,
			      char *err, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		char provider[256];
		const char *colon = strchr(probes[i], ':');
		if (!colon || (size_t)(colon - probes[i]) >= sizeof(provider))
			continue;
		snprintf(provider, sizeof(provider), "%.*s", (int)(colon - probes[i]), probes[i]);
		struct bpf_link *l = bpf_program__attach_usdt(s->prog, pid > 0 ? pid : -1, path, provider, colon + 1, NULL);
		if (stk_probe_set_add_link(s, l)) {
			snprintf(err, len, "attaching to USDT probe %s in %s failed: %s", probes[i], path, strerror(errno));
			stk_probe_set_release(s);
			return -1;
		}
		stk_probe_set_progress(s, i + 1, n);
	}
	s->mechanism = "usdt";
	s->n_targets = n;
	return 0;
}

int stk_usdt_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		    char *const *probes, size_t n, pid_t pid, char *err, size_t len)
{
	char why[256];

	if (stk_probe_set_load(s, load, USDT_PROGRAM, NULL, why, sizeof(why))) {
		snprintf(err, len, "usdt: %s", why);
		return -1;
	}
	return attach_usdt_loaded(s, path, probes, n, pid, err, len);
}

const char *stk_uprobe_program(const char *mechanism)
{
	const struct stk_rung *r = stk_rung_by_name(STK_ATTACH_USER_FUNCTION, mechanism);

	if (r)
		return programs[r->id];
	return mechanism && strcmp(mechanism, "usdt") == 0 ? USDT_PROGRAM : NULL;
}

int stk_uprobe_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			 const char *path, const struct stk_user_func_list *funcs, pid_t pid, char *err, size_t len)
{
	const struct stk_rung *r = stk_rung_by_name(STK_ATTACH_USER_FUNCTION, mechanism);
	char by_fd[64];
	int fd, ret = -1;

	if (!r) {
		snprintf(err, len, "no user function mechanism %s", mechanism ? mechanism : "(none)");
		return -1;
	}
	if (stk_probe_set_use(s, skel, program, err, len) || (fd = open_target(path, by_fd, sizeof(by_fd), err, len)) < 0)
		return -1;
	if (guard_uprobe_events(s, (enum stk_ufunc_mech)r->id, err, len) == 0 &&
	    attach_loaded(s, (enum stk_ufunc_mech)r->id, by_fd, funcs, pid, err, len) == 0) {
		s->mechanism = r->name;
		s->n_targets = funcs->n;
		ret = 0;
	}
	close(fd);
	if (ret)
		stk_probe_set_release(s);
	return ret;
}

int stk_usdt_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *program, const char *path,
		       char *const *probes, size_t n, pid_t pid, char *err, size_t len)
{
	if (stk_probe_set_use(s, skel, program, err, len))
		return -1;
	return attach_usdt_loaded(s, path, probes, n, pid, err, len);
}
