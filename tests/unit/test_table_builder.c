/*
 * core/unwind/table_builder.c with unwind_tables.c: tables built on the
 * builder's thread reach the maps as they come. The first load writes the
 * process with its files table-less (partial), each finished table is placed
 * and the process loaded again, and the end state has the rows a load that
 * built everything on the spot writes. While the caller is busy the builder
 * goes on, its finished tables waiting in order. A builder freed with work queued
 * stops and releases it (ASan's build checks the release).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "core/sym/symbolize.h"
#include "core/unwind/table_builder.h"
#include "core/unwind/unwind_tables.h"
#include "fake_unwind_maps.h"

struct reloads {
	struct stk_unwind_tables *tables;
	struct stk_process *proc;
	unsigned n;
	enum stk_unwind_load_result last;
};

static void reload(void *ctx, uint32_t tgid)
{
	struct reloads *r = ctx;

	r->n++;
	r->last = tgid == (uint32_t)r->proc->pid ? stk_unwind_tables_load(r->tables, r->proc, 0) : STK_UNWIND_LOAD_FAILED;
}

static int submit(void *ctx, struct stk_file *file, const char *name)
{
	return stk_table_builder_submit(ctx, file, name, file->fd, file->image, file->image_size);
}

/* rows the same files take when every table is built on the spot (another process table, its own guards) */
static uint64_t rows_built_here(void)
{
	struct stk_symbolizer_opts so = { .keep_elf = true };
	struct stk_symbolizer *sym = stk_symbolizer_new(&so);
	struct stk_process *self = sym ? stk_symbolizer_process(sym, getpid()) : NULL;
	struct fake_maps *fm = fake_new();
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_tables *tables = fm ? stk_unwind_tables_new(&fake_ops, fm, &cap, &lim) : NULL;
	struct stk_unwind_tables_stats st = { 0 };

	if (tables && self) {
		stk_unwind_tables_load(tables, self, 0);
		stk_unwind_tables_get_stats(tables, &st);
	}
	stk_unwind_tables_free(tables);
	stk_symbolizer_free(sym);
	fake_free(fm);
	return st.rows_used;
}

static void tables_arrive_from_the_thread(struct test_ctx *t)
{
	struct fake_maps *fm = fake_new();
	struct stk_symbolizer_opts so = { .keep_elf = true };
	struct stk_symbolizer *sym = stk_symbolizer_new(&so);
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_tables *tables = fm ? stk_unwind_tables_new(&fake_ops, fm, &cap, &lim) : NULL;
	struct stk_table_builder *b = stk_table_builder_new(&lim);
	struct stk_unwind_tables_stats st;
	struct stk_process *me = sym ? stk_symbolizer_process(sym, getpid()) : NULL;
	struct reloads r = { tables, me, 0, STK_UNWIND_LOAD_FAILED };
	unsigned arrived = 0;

	CHECK(t, fm && sym && tables && b && me);
	if (!fm || !sym || !tables || !b || !me)
		goto out;
	/* with a builder the loop scans no guard: the builder scans each file itself */
	stk_unwind_tables_set_builder(tables, submit, b);
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_PARTIAL);
	CHECK(t, fm->has_proc && (fm->proc.flags & STK_PROC_PARTIAL) && fm->proc_written_last);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, st.files_queued > 0 && st.files_built == 0 && st.rows_used == 0);
	/* loaded again before anything came: nothing is queued twice */
	unsigned queued = st.files_queued;
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_PARTIAL);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, st.files_queued == queued);
	/* each result as the loop would take it: placed, then the process loaded again */
	while (arrived < queued) {
		struct pollfd pfd = { .fd = stk_table_builder_fd(b), .events = POLLIN };
		struct stk_table_built done;

		if (poll(&pfd, 1, 60000) != 1)
			break;
		if (!stk_table_builder_take(b, &done))
			continue;
		arrived++;
		stk_unwind_tables_built(tables, done.file, done.name, done.ok ? &done.table : NULL, done.why,
					done.table.stats.build_ns);
		stk_cfi_table_free(&done.table);
		stk_unwind_tables_each_user(tables, done.file, reload, &r);
	}
	CHECK(t, arrived == queued && stk_table_builder_pending(b) == 0);
	/* every arrival reloaded the one process mapping it, without spending its reload budget */
	CHECK(t, r.n == queued && r.last == STK_UNWIND_LOADED);
	CHECK(t, !(fm->proc.flags & STK_PROC_PARTIAL) && fm->proc_written_last);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, st.files_built > 0 && st.files_built + st.files_failed == queued);
	CHECK(t, st.rows_used == rows_built_here());
	/* a load with nothing new writes nothing */
	unsigned writes = fm->writes;
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LOADED && fm->writes == writes);
out:
	stk_table_builder_free(b);
	stk_unwind_tables_free(tables);
	stk_symbolizer_free(sym);
	fake_free(fm);
}

static void freed_with_work_queued(struct test_ctx *t)
{
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_table_builder *b = stk_table_builder_new(&lim);
	static const char image[] = "not an ELF file";
	static struct stk_file junk, self;
	struct stk_table_built done;
	struct pollfd pfd;

	CHECK(t, b != NULL);
	if (!b)
		return;
	/* a job that fails comes back with why, the file it was for, and no table */
	CHECK(t, stk_table_builder_submit(b, &junk, "junk", -1, image, sizeof(image)) == 0);
	pfd = (struct pollfd){ .fd = stk_table_builder_fd(b), .events = POLLIN };
	CHECK(t, poll(&pfd, 1, 60000) == 1 && stk_table_builder_take(b, &done));
	CHECK(t, done.file == &junk && !done.ok && strstr(done.why, "not an ELF file") && !done.table.rows);
	CHECK(t, !stk_table_builder_take(b, &done));
	/* no descriptor and no image: refused at once */
	CHECK(t, stk_table_builder_submit(b, &junk, "none", -1, NULL, 0) == -1);
	/* this test binary, many times over: freed at once, the queue and any build under way go */
	for (int i = 0; i < 50; i++) {
		int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		CHECK(t, fd >= 0 && stk_table_builder_submit(b, &self, "self", fd, NULL, 0) == 0);
		if (fd >= 0)
			close(fd);
	}
	stk_table_builder_free(b);
}

/* The caller away: the builder goes on, finished tables wait in order, the descriptor readable until the last is taken. */
static void builds_ahead_while_the_caller_is_busy(struct test_ctx *t)
{
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_table_builder *b = stk_table_builder_new(&lim);
	static struct stk_file ids[4];
	struct stk_table_built done;
	struct pollfd pfd;
	unsigned waited = 0, taken = 0;

	CHECK(t, b != NULL);
	if (!b)
		return;
	for (int i = 0; i < 4; i++) {
		int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		CHECK(t, fd >= 0 && stk_table_builder_submit(b, &ids[i], "self", fd, NULL, 0) == 0);
		if (fd >= 0)
			close(fd);
	}
	/* nothing taken: all four still get built (one table of this binary is far below the bound) */
	while (stk_table_builder_pending(b) && waited++ < 6000)
		usleep(10000);
	CHECK(t, stk_table_builder_pending(b) == 0);
	pfd = (struct pollfd){ .fd = stk_table_builder_fd(b), .events = POLLIN };
	for (; taken < 4; taken++) {
		CHECK(t, poll(&pfd, 1, 0) == 1);
		if (!stk_table_builder_take(b, &done))
			break;
		CHECK(t, done.file == &ids[taken] && done.ok && done.table.n_rows > 0);
		stk_cfi_table_free(&done.table);
	}
	CHECK(t, taken == 4 && poll(&pfd, 1, 0) == 0 && !stk_table_builder_take(b, &done));
	stk_table_builder_free(b);
}

const struct test_case table_builder_tests[] = {
	{ "tables_arrive_from_the_thread", tables_arrive_from_the_thread },
	{ "builds_ahead_while_the_caller_is_busy", builds_ahead_while_the_caller_is_busy },
	{ "freed_with_work_queued", freed_with_work_queued },
	{ NULL, NULL },
};
