/* One thread's stack now (thread_stack.h): pmp's snapshot, unwinding and counting, for a single thread. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/session/stack_list.h"
#include "core/snapshot/bpf/snapshot_source.h"
#include "core/snapshot/bpf/thread_stack.h"
#include "core/snapshot/snap_count.h"
#include "core/snapshot/snap_unwind.h"

#define STACK_BYTES 16384
#define RUNNING_MS 100
#define STARVED_MS 1000
#define MAX_USER_FRAMES 512

static struct stk_stack *add_stack(void *ctx)
{
	return stk_stack_list_add(ctx);
}

int stk_thread_stack_take(const struct stk_thread_stack_request *req, struct stk_symbolizer *sym,
			  struct stk_stack_list *out, char *err, size_t len)
{
	const struct stk_snap_request sr = {
		.want = { .tids = &req->tid, .n_tids = 1 },
		.self_tgid = req->self_tgid,
		.stack_bytes = STACK_BYTES,
		.running_ms = RUNNING_MS,
		.starved_ms = STARVED_MS,
		.btf_custom_path = req->btf_custom_path,
		.kernel_btf = req->kernel_btf,
		.never_stop = true, /* a look must not stop the thread looked at */
	};
	const struct stk_snap_count_opts co = { .per_thread = true, .state_frame = true };
	struct stk_snapper *snapper = stk_snapper_open(&sr, err, len);
	struct stk_snap_unwinder *unwinder = NULL;
	struct stk_snap_counter *counter = NULL;
	struct stk_snap snap = { 0 };
	struct stk_snap_stats st;
	uint64_t ips[MAX_USER_FRAMES];
	int ret = -1;

	if (!snapper)
		return -1;
	unwinder = stk_snap_unwinder_new(sym, "/proc");
	counter = stk_snap_counter_new(&co, stk_snapper_names(snapper), sym);
	if (!unwinder || !counter) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	stk_snap_unwinder_prepare(unwinder, req->tgid);
	if (stk_snapper_take(snapper, &snap, &st)) {
		snprintf(err, len, "taking the snapshot failed: %s", strerror(errno));
		goto out;
	}
	if (!snap.n) {
		snprintf(err, len, "thread %u is gone", req->tid);
		goto out;
	}
	for (size_t i = 0; i < snap.n; i++) {
		struct stk_unwind_result r = { .ips = ips, .max = MAX_USER_FRAMES };

		stk_snap_unwind(unwinder, &snap.threads[i], &r);
		if (stk_snap_count(counter, &snap.threads[i], ips, r.n, r.stop)) {
			snprintf(err, len, "out of memory");
			goto out;
		}
	}
	if (stk_snap_counter_collect(counter, add_stack, out)) {
		snprintf(err, len, "out of memory while naming frames");
		goto out;
	}
	ret = 0;
out:
	stk_snap_free(&snap);
	stk_snap_counter_free(counter);
	stk_snap_unwinder_free(unwinder);
	stk_snapper_free(snapper);
	return ret;
}
