#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/threads/thread_table.h"

static char *render(const struct stk_thread_table *table)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	stk_thread_table_print(f, table);
	fclose(f);
	return buf;
}

static void prints_averages_and_header(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	char err[64];
	char *run[] = { "RUN", "spin", "" }, *sleep[] = { "SLEEP", "reader", "read" };
	struct stk_group_row rows[] = { { run, 3, 40 }, { sleep, 3, 10 } };

	stk_group_spec_add(&spec, "state,comm,syscall", err, sizeof(err));
	struct stk_thread_table table = {
		.spec = &spec, .rows = rows, .n_rows = 2, .top = 20, .samples = 40,
		.start_ns = 1763775000000000000LL, .end_ns = 1763775005000000000LL, .source = "task_iter",
	};
	char *out = render(&table);
	CHECK_STR(t, out,
		  "\n2025-11-22 01:30:00.000 - 01:30:05.000 UTC, 40 samples, source task_iter\n\n"
		  "AVG_THREADS  STATE  COMM    SYSCALL\n"
		  "       1.00  RUN    spin    -\n"
		  "       0.25  SLEEP  reader  read\n");
	free(out);

	table.top = 1;
	out = render(&table);
	CHECK(t, strstr(out, ", top 1 of 2 groups\n") != NULL);
	CHECK(t, strstr(out, "reader") == NULL);
	free(out);

	table.n_rows = 0;
	out = render(&table);
	CHECK(t, strstr(out, "(no active threads sampled)") != NULL);
	free(out);
}

static void formats_utc(struct test_ctx *t)
{
	char buf[40];

	stk_format_utc(1763775005123456789LL, buf, sizeof(buf));
	CHECK_STR(t, buf, "2025-11-22 01:30:05.123");
}

const struct test_case thread_table_tests[] = {
	{ "thread_table_prints", prints_averages_and_header },
	{ "thread_table_formats_utc", formats_utc },
	{ NULL, NULL },
};
