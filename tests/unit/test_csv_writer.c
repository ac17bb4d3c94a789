#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "core/threads/csv_writer.h"
#include "core/threads/thread_procfs.h"
#include "core/threads/thread_record.h"

#define HOUR_NS (3600LL * 1000000000LL)
/* 2025-11-22 01:59:59 UTC */
#define T0 (1763776799LL * 1000000000LL)

static void quotes_fields(struct test_ctx *t)
{
	char buf[64];
	size_t used = 0;

	CHECK(t, stk_csv_append_field(buf, sizeof(buf), &used, "plain") == 0);
	CHECK_STR(t, buf, "plain");
	used = 0;
	CHECK(t, stk_csv_append_field(buf, sizeof(buf), &used, "a,\"b\"\nc") == 0);
	CHECK_STR(t, buf, "\"a,\"\"b\"\"\nc\"");
	used = 0;
	CHECK(t, stk_csv_append_field(buf, 4, &used, "toolong") == -1);
}

static void read_file(const char *path, char *buf, size_t len)
{
	if (stk_read_small_file(path, buf, len) < 0)
		buf[0] = '\0';
}

static void rotates_at_the_hour(struct test_ctx *t)
{
	char dir[256], path[512], text[1024], err[256];
	const char *row1[] = { "1", "a,b" }, *row2[] = { "2", "x" };

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	struct stk_csv_writer *w = stk_csv_writer_new(dir, "samples", "n,text", err, sizeof(err));
	CHECK(t, w != NULL);
	if (!w)
		return;
	CHECK(t, stk_csv_write_row(w, T0, row1, 2, err, sizeof(err)) == 1);     /* first file */
	CHECK(t, stk_csv_write_row(w, T0 + 1, row2, 2, err, sizeof(err)) == 0); /* same hour */
	CHECK(t, stk_csv_write_row(w, T0 + 1000000000LL, row2, 2, err, sizeof(err)) == 1); /* 02:00:00 */
	snprintf(path, sizeof(path), "%s/samples-2025-11-22-01.csv", dir);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, "n,text\n1,\"a,b\"\n2,x\n");
	snprintf(path, sizeof(path), "%s/samples-2025-11-22-02.csv", dir);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, "n,text\n2,x\n");
	CHECK_STR(t, stk_csv_current_path(w), path);
	stk_csv_writer_free(w);

	/* A restarted recorder appends to the hour's file without a second header. */
	w = stk_csv_writer_new(dir, "samples", "n,text", err, sizeof(err));
	CHECK(t, w && stk_csv_write_row(w, T0 + HOUR_NS / 2, row1, 2, err, sizeof(err)) == 1);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, "n,text\n2,x\n1,\"a,b\"\n");
	stk_csv_writer_free(w);

	CHECK(t, stk_csv_writer_new("/nonexistent/dir", "samples", "n", err, sizeof(err)) == NULL);
	CHECK(t, strstr(err, "No such file") != NULL);
	remove_tree(dir);
}

static void records_samples_and_stacks(struct test_ctx *t)
{
	char dir[256], path[512], text[2048], err[256];
	struct stk_thread th = { .tid = 12, .tgid = 10, .state = STK_TSTATE_SLEEP, .syscall = 0,
				 .args = { 3, 0x7ffe, 1 }, .syscall_ns = 2500000, .username = "root",
				 .exe = "/bin/cat", .wchan = "anon_pipe_read", .filename = "pipe:[42]" };
	char kstack[] = "entry_SYSCALL_64;ksys_read;anon_pipe_read";

	strcpy(th.comm, "cat, the reader");
	th.kstack = kstack;
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	struct stk_thread_record *r = stk_thread_record_new(dir, err, sizeof(err));
	CHECK(t, r != NULL);
	if (!r)
		return;
	CHECK(t, stk_thread_record_write(r, &th, T0 + 123456000LL, err, sizeof(err)) == 0);
	CHECK(t, stk_thread_record_write(r, &th, T0 + 223456000LL, err, sizeof(err)) == 0);
	CHECK(t, stk_thread_record_write(r, &th, T0 + 1223456000LL, err, sizeof(err)) == 0); /* next hour */
	stk_thread_record_free(r);
	char hash[20];
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)stk_stack_hash(kstack));
	char want[1024];
	snprintf(want, sizeof(want), STK_SAMPLES_HEADER "\n"
		 "2025-11-22T01:59:59.123456Z,12,10,SLEEP,root,\"cat, the reader\",/bin/cat,read,2500,pipe:[42],"
		 "anon_pipe_read,0x3,0x7ffe,0x1,0x0,0x0,0x0,%s,\n"
		 "2025-11-22T01:59:59.223456Z,12,10,SLEEP,root,\"cat, the reader\",/bin/cat,read,2500,pipe:[42],"
		 "anon_pipe_read,0x3,0x7ffe,0x1,0x0,0x0,0x0,%s,\n", hash, hash);
	snprintf(path, sizeof(path), "%s/samples-2025-11-22-01.csv", dir);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, want);
	/* Each hour's stacks file holds its stacks once. */
	snprintf(want, sizeof(want), STK_STACKS_HEADER "\n%s,kernel,%s\n", hash, kstack);
	snprintf(path, sizeof(path), "%s/stacks-2025-11-22-01.csv", dir);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, want);
	snprintf(path, sizeof(path), "%s/stacks-2025-11-22-02.csv", dir);
	read_file(path, text, sizeof(text));
	CHECK_STR(t, text, want);
	remove_tree(dir);
}

const struct test_case csv_writer_tests[] = {
	{ "csv_quotes_fields", quotes_fields },
	{ "csv_rotates_at_the_hour", rotates_at_the_hour },
	{ "csv_records_samples_and_stacks", records_samples_and_stacks },
	{ NULL, NULL },
};
