/* stk top over a recording (top_replay.h). */
#include <stdio.h>
#include <string.h>

#include "core/base/log.h"
#include "core/eventlog/event_reader.h"
#include "core/top/top_replay.h"

#define NS 1000000000LL

int stk_top_replay_open(struct stk_top_replay *rp, const char *applet, char *const *args, size_t n)
{
	struct stk_recording_window all = { 0 };

	memset(rp, 0, sizeof(*rp));
	stk_recording_init(&rp->rec, applet);
	for (size_t i = 0; i < n; i++)
		if (stk_recording_add_arg(&rp->rec, args[i])) {
			stk_error(applet, "%s: too many recordings (at most %d arguments; a directory or a glob takes many)",
				  args[i], STK_RECORDING_MAX_ARGS);
			return -1;
		}
	if (stk_recording_expand(&rp->rec) || stk_recording_first(&rp->rec, &rp->first))
		return -1;
	if (stk_recording_end_named(&rp->rec, &rp->end))
		return 0;
	/* not a series: its footers say where it ends */
	if (stk_recording_window_open(&rp->rec, INT64_MIN, INT64_MAX, &all))
		return -1;
	struct stk_ev_file *f = stk_recording_window_reader(&all);
	if (f) {
		const struct stk_ev_meta *m = stk_ev_meta(f);
		rp->end = m->start + m->duration;
		stk_ev_close(f);
	}
	stk_recording_window_close(&all);
	if (rp->end <= rp->first)
		rp->end = rp->first + NS;
	return f ? 0 : -1;
}

void stk_top_replay_close(struct stk_top_replay *rp)
{
	stk_recording_free(&rp->rec);
	stk_thread_batch_free(&rp->batch);
}

struct reading {
	struct stk_top_replay *rp;
	int64_t from, pass_time;
	struct stk_top_window *w;
	struct stk_top_history *h;
	bool (*filter)(const struct stk_thread *t, void *ctx);
	void *ctx;
	bool failed;
};

/* The rows of one pass, gathered: into the history, and into the window when the pass is in the step. */
static int flush_pass(struct reading *r)
{
	struct stk_thread_batch *b = &r->rp->batch;
	int ret = 0;

	if (b->n) {
		b->wall_ns = b->mono_ns = r->pass_time;
		ret = stk_top_history_add(r->h, b, r->pass_time / NS);
		if (!ret && r->pass_time >= r->from)
			ret = stk_top_window_add(r->w, b, r->filter, r->ctx);
	}
	stk_thread_batch_reset(b);
	return ret;
}

static int on_row(void *ctx, const struct stk_ev_event *ev)
{
	struct reading *r = ctx;
	enum stk_tstate state;

	if (!ev->state_name || stk_tstate_from_name(ev->state_name, &state))
		return 0; /* not a thread state (another kind's row) */
	if (ev->time != r->pass_time && flush_pass(r))
		return -1;
	r->pass_time = ev->time;
	struct stk_thread *t = stk_thread_batch_add(&r->rp->batch);
	if (!t)
		return -1;
	t->tid = ev->tid;
	t->tgid = ev->pid;
	t->state = state;
	t->keep = true; /* a recording holds the threads its capture kept */
	memcpy(t->comm, ev->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->syscall = ev->syscall_nr >= 0 ? ev->syscall_nr : STK_TSYS_NONE;
	snprintf(t->wchan, sizeof(t->wchan), "%s", ev->wchan ? ev->wchan : "");
	snprintf(t->filename, sizeof(t->filename), "%s", ev->file ? ev->file : "");
	return 0;
}

int stk_top_replay_read(struct stk_top_replay *rp, int64_t from, int64_t to, struct stk_top_window *w,
			struct stk_top_history *h, bool (*filter)(const struct stk_thread *t, void *ctx), void *ctx,
			char *err, size_t len)
{
	struct stk_recording_window win = { 0 };
	struct stk_ev_filter flt;
	int64_t since = to - (int64_t)STK_TOP_HISTORY_SECS * NS;
	struct reading r = { .rp = rp, .from = from, .pass_time = INT64_MIN, .w = w, .h = h, .filter = filter,
			     .ctx = ctx };
	int ret = -1;

	stk_top_history_free(h);
	stk_top_history_init(h);
	stk_thread_batch_reset(&rp->batch);
	if (stk_recording_window_open(&rp->rec, since, to, &win)) {
		snprintf(err, len, "the recording's files could not be opened (said above)");
		return -1;
	}
	struct stk_ev_file *f = stk_recording_window_reader(&win);
	if (f) {
		stk_ev_filter_all(&flt);
		flt.from = since;
		flt.to = to;
		flt.event = "state";
		ret = stk_ev_each(f, &flt, on_row, &r, err, len);
		if (ret == 0 && flush_pass(&r))
			ret = -1;
		if (ret && !err[0])
			snprintf(err, len, "out of memory");
		stk_ev_close(f);
	} else {
		snprintf(err, len, "the recording could not be read (said above)");
	}
	stk_recording_window_close(&win);
	return ret;
}
