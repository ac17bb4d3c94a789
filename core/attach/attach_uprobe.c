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

static int try_uprobe_multi(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
			    const struct stk_user_func_list *funcs, pid_t pid, char *why, size_t len)
{
	unsigned long *offsets = calloc(funcs->n, sizeof(*offsets));
	int ret = -1;

	if (!offsets) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < funcs->n; i++)
		offsets[i] = (unsigned long)funcs->funcs[i].offset;
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = offsets, .cnt = funcs->n);
	if (stk_probe_set_load(s, load, "stk_sc_uprobe_multi", NULL, why, len))
		goto out;
	if (stk_probe_set_add_link(s, bpf_program__attach_uprobe_multi(s->prog, pid > 0 ? pid : -1, path, NULL, &o))) {
		snprintf(why, len, "attach failed: %s", strerror(errno));
		stk_probe_set_release(s);
		goto out;
	}
	ret = 0;
out:
	free(offsets);
	return ret;
}

static int try_uprobe(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		      const struct stk_user_func_list *funcs, pid_t pid, char *why, size_t len)
{
	/* Without the uprobe PMU (before 4.17) libbpf writes uprobe_events: guard them. */
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) && stk_probe_set_guard(s)) {
		snprintf(why, len, "starting the uprobe_events cleanup guard failed");
		return -1;
	}
	if (stk_probe_set_load(s, load, "stk_sc_uprobe", NULL, why, len))
		return -1;
	for (size_t i = 0; i < funcs->n; i++) {
		struct bpf_link *l = bpf_program__attach_uprobe_opts(s->prog, pid > 0 ? pid : -1, path,
								     (size_t)funcs->funcs[i].offset, NULL);
		if (stk_probe_set_add_link(s, l)) {
			snprintf(why, len, "attach to %s failed: %s", funcs->funcs[i].name, strerror(errno));
			stk_probe_set_release(s);
			return -1;
		}
		stk_probe_set_progress(s, i + 1, funcs->n);
	}
	return 0;
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

	if (r->id == STK_UFUNC_UPROBE_MULTI)
		return try_uprobe_multi(u->s, u->load, u->path, u->funcs, u->pid, why, len);
	return try_uprobe(u->s, u->load, u->path, u->funcs, u->pid, why, len);
}

int stk_uprobe_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		      const struct stk_user_func_list *funcs, pid_t pid, const char *forced, char *err, size_t len)
{
	const struct stk_rung *order[4];
	size_t n = stk_ladder_order(STK_ATTACH_USER_FUNCTION, funcs->n, 0, order, 4);
	const struct stk_untrusted_rules any = { 0 };
	char none[4200], by_fd[64];
	int ret, fd = stk_untrusted_open(path, &any);

	/*
	 * The kernel resolves the path it is given against stk's own root: a
	 * "/proc/PID/root/..." path with a symlink planted inside a container
	 * would name a host file. The file opened inside its root is handed
	 * over as /proc/self/fd/N instead; its probes hold the inode after close.
	 */
	if (fd < 0) {
		snprintf(err, len, "cannot open %s: %s", path, stk_untrusted_strerror(fd));
		return -1;
	}
	snprintf(by_fd, sizeof(by_fd), "/proc/self/fd/%d", fd);
	struct uprobe_ctx u = { s, load, by_fd, funcs, pid };
	snprintf(none, sizeof(none), "cannot attach uprobes to %s", path);
	ret = stk_probe_set_climb(s, STK_ATTACH_USER_FUNCTION, order, n, forced, try_rung, &u, none, err, len);
	close(fd);
	if (ret)
		return -1;
	s->n_targets = funcs->n;
	return 0;
}

int stk_usdt_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		    char *const *probes, size_t n, pid_t pid, char *err, size_t len)
{
	char why[256];

	if (stk_probe_set_load(s, load, "stk_sc_usdt", NULL, why, sizeof(why))) {
		snprintf(err, len, "usdt: %s", why);
		return -1;
	}
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
