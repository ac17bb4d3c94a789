/* stk top's model without a terminal: core/view/view_table.c, core/top/top_window.c, top_history.c, top_screens.c. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/top/top_history.h"
#include "core/top/top_screens.h"
#include "core/top/top_window.h"
#include "core/view/view_table.h"

static const struct stk_vt_column cols[] = { { "N", true }, { "NAME", false } };

static void add_row(struct stk_vtable *tb, const char *name, double n)
{
	char num[32];

	snprintf(num, sizeof(num), "%g", n);
	const char *cells[] = { num, name };
	const double values[] = { n, 0 };
	stk_vtable_add(tb, name, cells, values);
}

static const char *shown_name(const struct stk_vtable *tb, size_t i)
{
	const struct stk_vt_row *r = stk_vtable_shown(tb, i);

	return r ? r->cells[1] : "(none)";
}

static void table_sorts_searches_and_keeps_selection(struct test_ctx *t)
{
	struct stk_vtable tb;

	stk_vtable_init(&tb, cols, 2, 0);
	add_row(&tb, "mysqld", 3);
	add_row(&tb, "kworker", 1);
	add_row(&tb, "jbd2", 2);
	CHECK(t, stk_vtable_finish(&tb) == 0);
	CHECK_STR(t, shown_name(&tb, 0), "mysqld"); /* numeric: largest first */
	CHECK_STR(t, shown_name(&tb, 2), "kworker");
	stk_vtable_move(&tb, 1, 10);
	CHECK_STR(t, stk_vtable_selected(&tb)->cells[1], "jbd2");
	/* the next refresh: jbd2 grew to the top; the selection follows it */
	stk_vtable_clear(&tb);
	add_row(&tb, "mysqld", 3);
	add_row(&tb, "kworker", 1);
	add_row(&tb, "jbd2", 9);
	stk_vtable_finish(&tb);
	CHECK(t, tb.sel == 0);
	CHECK_STR(t, stk_vtable_selected(&tb)->cells[1], "jbd2");
	/* by name, then the other way */
	stk_vtable_sort(&tb, 1);
	CHECK_STR(t, shown_name(&tb, 0), "jbd2");
	CHECK_STR(t, shown_name(&tb, 2), "mysqld");
	stk_vtable_sort(&tb, 1);
	CHECK_STR(t, shown_name(&tb, 0), "mysqld");
	/* a search narrows, case-insensitively, over every cell */
	stk_vtable_search(&tb, "KW");
	CHECK(t, tb.n_shown == 1);
	CHECK_STR(t, stk_vtable_selected(&tb)->cells[1], "kworker");
	stk_vtable_search(&tb, "nothing");
	CHECK(t, tb.n_shown == 0 && stk_vtable_selected(&tb) == NULL);
	stk_vtable_search(&tb, "");
	CHECK(t, tb.n_shown == 3);
	stk_vtable_free(&tb);
}

static void table_moves_within_window(struct test_ctx *t)
{
	struct stk_vtable tb;
	char name[16];

	stk_vtable_init(&tb, cols, 2, 1);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "t%03d", i);
		add_row(&tb, name, i);
	}
	stk_vtable_finish(&tb);
	stk_vtable_move(&tb, 25, 10); /* a page further */
	CHECK(t, tb.sel == 25 && tb.top == 16);
	stk_vtable_move(&tb, -1000, 10);
	CHECK(t, tb.sel == 0 && tb.top == 0);
	stk_vtable_home(&tb, true, 10);
	CHECK(t, tb.sel == 99 && tb.top == 90);
	/* rows gone: the selection stays in range */
	stk_vtable_clear(&tb);
	add_row(&tb, "only", 1);
	stk_vtable_finish(&tb);
	CHECK(t, tb.sel == 0 && tb.top == 0);
	stk_vtable_free(&tb);
}

static void add_thread(struct stk_thread_batch *b, uint32_t tid, enum stk_tstate st, const char *comm, bool keep)
{
	struct stk_thread *th = stk_thread_batch_add(b);

	th->tid = tid;
	th->tgid = 100;
	th->state = st;
	th->keep = keep;
	th->syscall = STK_TSYS_NONE;
	snprintf(th->comm, sizeof(th->comm), "%s", comm);
}

static void window_groups_and_threads(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	struct stk_top_window w;
	struct stk_thread_batch b = { 0 };
	struct stk_vtable groups = { 0 }, threads = { 0 };
	char err[128];

	CHECK(t, stk_group_spec_add(&spec, "state,comm", err, sizeof(err)) == 0);
	stk_top_window_init(&w, &spec);
	/* two passes: thread 1 runs in both, thread 2 in one, thread 3 is in DISK in both, 4 sleeps (not kept) */
	for (int pass = 0; pass < 2; pass++) {
		stk_thread_batch_reset(&b);
		add_thread(&b, 1, STK_TSTATE_RUN, "worker", true);
		if (pass == 0)
			add_thread(&b, 2, STK_TSTATE_RUN, "worker", true);
		add_thread(&b, 3, STK_TSTATE_DISK, "jbd2", true);
		add_thread(&b, 4, STK_TSTATE_SLEEP, "idle", false);
		CHECK(t, stk_top_window_add(&w, &b, NULL, NULL) == 0);
	}
	CHECK(t, w.passes == 2 && w.counted == 2 && w.states[STK_TSTATE_DISK] == 1 && w.states[STK_TSTATE_SLEEP] == 0);
	stk_top_groups_init(&groups, &spec);
	CHECK(t, stk_top_groups_fill(&groups, &w) == 0);
	CHECK(t, groups.n_shown == 2);
	const struct stk_vt_row *top = stk_vtable_shown(&groups, 0);
	CHECK_STR(t, top->cells[0], "1.50"); /* 3 samples of RUN worker over 2 passes */
	CHECK_STR(t, top->cells[1], "2");
	CHECK_STR(t, top->cells[2], "RUN");
	CHECK_STR(t, top->cells[3], "worker");
	CHECK_STR(t, groups.cols[2].title, "STATE");
	stk_top_threads_init(&threads);
	CHECK(t, stk_top_threads_fill(&threads, &w, top->key) == 0);
	CHECK(t, threads.n_shown == 2);
	CHECK_STR(t, stk_vtable_shown(&threads, 0)->cells[0], "1"); /* thread 1, in both passes, first */
	CHECK_STR(t, stk_vtable_shown(&threads, 0)->cells[2], "1.00");
	CHECK_STR(t, stk_vtable_shown(&threads, 1)->cells[2], "0.50");
	stk_top_window_reset(&w);
	CHECK(t, w.n_threads == 0 && w.passes == 0);
	stk_vtable_free(&groups);
	stk_vtable_free(&threads);
	stk_top_window_free(&w);
	stk_thread_batch_free(&b);
}

static bool only_jbd2(const struct stk_thread *th, void *ctx)
{
	(void)ctx;
	return strcmp(th->comm, "jbd2") == 0;
}

static void window_filter_and_key_values(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	struct stk_top_window w;
	struct stk_thread_batch b = { 0 };
	char err[128], v[64];

	stk_group_spec_add(&spec, "comm,state", err, sizeof(err));
	stk_top_window_init(&w, &spec);
	add_thread(&b, 1, STK_TSTATE_RUN, "a\x1f" "b", true); /* the separator inside a value */
	add_thread(&b, 3, STK_TSTATE_DISK, "jbd2", true);
	stk_top_window_add(&w, &b, NULL, NULL);
	stk_top_key_value(w.threads[0].group_key, 0, v, sizeof(v));
	CHECK_STR(t, v, "a b");
	stk_top_key_value(w.threads[0].group_key, 1, v, sizeof(v));
	CHECK_STR(t, v, "RUN");
	stk_top_key_value(w.threads[0].group_key, 5, v, sizeof(v));
	CHECK_STR(t, v, "");
	stk_top_window_reset(&w);
	stk_top_window_add(&w, &b, only_jbd2, NULL);
	CHECK(t, w.n_threads == 1 && w.threads[0].tid == 3);
	stk_top_window_free(&w);
	stk_thread_batch_free(&b);
}

static void history_keeps_a_minute(struct test_ctx *t)
{
	struct stk_top_history h;
	struct stk_thread_batch b = { 0 };
	char line[STK_TOP_HISTORY_SECS + 1];

	stk_top_history_init(&h);
	for (int64_t sec = 1000; sec < 1070; sec++) {
		stk_thread_batch_reset(&b);
		add_thread(&b, 7, sec % 2 ? STK_TSTATE_RUN : STK_TSTATE_SLEEP, "x", true);
		if (sec < 1010)
			add_thread(&b, 8, STK_TSTATE_DISK, "gone", true);
		if (sec == 1065 || sec == 1069)
			add_thread(&b, 9, STK_TSTATE_DISK, "blip", true);
		CHECK(t, stk_top_history_add(&h, &b, sec) == 0);
	}
	CHECK(t, stk_top_history_line(&h, 7, 1069, line, sizeof(line)));
	CHECK(t, strlen(line) == 60);
	CHECK(t, line[59] == 'R' && line[58] == 'S' && line[0] == 'S'); /* 1069 odd, 1010 even */
	CHECK(t, stk_top_history_line(&h, 9, 1069, line, sizeof(line)));
	CHECK_STR(t, line + 55, "D...D"); /* 1065 to 1069 */
	/* thread 8 was last seen at 1009: a minute later it is forgotten */
	CHECK(t, !stk_top_history_line(&h, 8, 1069, line, sizeof(line)));
	CHECK(t, h.n == 2);
	stk_top_history_free(&h);
	stk_thread_batch_free(&b);
}

const struct test_case top_view_tests[] = {
	{ "table_sorts_searches_and_keeps_selection", table_sorts_searches_and_keeps_selection },
	{ "table_moves_within_window", table_moves_within_window },
	{ "window_groups_and_threads", window_groups_and_threads },
	{ "window_filter_and_key_values", window_filter_and_key_values },
	{ "history_keeps_a_minute", history_keeps_a_minute },
	{ NULL, NULL },
};
