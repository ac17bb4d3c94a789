/* New-process announcements -> the session: see process_watch.h. */
#include "core/bpf/process_watch.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <bpf/libbpf.h>

#include "core/base/log.h"
#include "core/base/run_loop.h"

/* Pages per CPU of the perf buffer: announcements are 4 bytes and rare. */
#define WATCH_PAGES 16

struct stk_process_watch {
	struct perf_buffer *buf;
	stk_process_fn fn;
	void *ctx;
};

static void learn_process(void *ctx, int cpu, void *data, __u32 size)
{
	struct stk_process_watch *w = ctx;
	uint32_t tgid;

	(void)cpu;
	if (size < sizeof(tgid))
		return;
	memcpy(&tgid, data, sizeof(tgid));
	w->fn(w->ctx, (pid_t)tgid);
}

static void consume(void *ctx)
{
	struct stk_process_watch *w = ctx;

	perf_buffer__consume(w->buf);
}

struct stk_process_watch *stk_process_watch_start(const char *applet, const struct bpf_map *map,
						  stk_process_fn fn, void *ctx, struct stk_run_loop *loop)
{
	struct stk_process_watch *w = calloc(1, sizeof(*w));

	if (!w) {
		stk_error(applet, "out of memory");
		return NULL;
	}
	w->fn = fn;
	w->ctx = ctx;
	w->buf = perf_buffer__new(bpf_map__fd(map), WATCH_PAGES, learn_process, NULL, w, NULL);
	if (!w->buf) {
		stk_error(applet, "creating the new-process buffer failed: %s", strerror(errno));
		free(w);
		return NULL;
	}
	if (stk_run_loop_add_fd(loop, perf_buffer__epoll_fd(w->buf), consume, w)) {
		stk_error(applet, "watching the new-process buffer failed");
		stk_process_watch_free(w);
		return NULL;
	}
	return w;
}

void stk_process_watch_drain(struct stk_process_watch *w)
{
	if (w)
		perf_buffer__consume(w->buf);
}

void stk_process_watch_free(struct stk_process_watch *w)
{
	if (!w)
		return;
	perf_buffer__free(w->buf);
	free(w);
}
