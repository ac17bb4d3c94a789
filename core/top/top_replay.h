/*
 * stk top over a recording (stk record's series, stk threadstate -o
 * FILE.parquet): the thread states of one step [from, to) read back into
 * the same window the live view fills, pass by pass (the rows of one
 * sample pass share its time), and the minute before `to` into the
 * threads' history; each step opens only the files it needs
 * (core/eventlog/recording_files.h), so stepping through a week-long
 * series costs what one step reads.
 */
#ifndef STK_TOP_REPLAY_H
#define STK_TOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/eventlog/recording_files.h"
#include "core/threads/thread_sample.h"
#include "core/top/top_history.h"
#include "core/top/top_window.h"

struct stk_top_replay {
	struct stk_recording rec;
	int64_t first, end; /* the recording's first event and its end (ns since the epoch) */
	struct stk_thread_batch batch;
};

/* The recording of args (files, directories, globs). 0, or -1 after a one-line error (stk_error). */
int stk_top_replay_open(struct stk_top_replay *rp, const char *applet, char *const *args, size_t n);
void stk_top_replay_close(struct stk_top_replay *rp);
/*
 * The thread states of [from, to) into w (filter as stk_top_window_add's),
 * the minute before to into h (emptied first). *passes: the sample passes
 * found in [from, to). 0, or -1 with err (a file went bad, out of memory).
 */
int stk_top_replay_read(struct stk_top_replay *rp, int64_t from, int64_t to, struct stk_top_window *w,
			struct stk_top_history *h, bool (*filter)(const struct stk_thread *t, void *ctx), void *ctx,
			char *err, size_t len);

#endif
