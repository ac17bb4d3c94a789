/* stk resources' pure parts: -e and --mechanism, and tracepoint record layouts from format files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/base/trace_format.h"
#include "core/resources/kinds.h"
#include "core/resources/marks.h"
#include "core/stack/stack_mark.h"
#include "core/threads/syscall_table.h"

static int parse(struct stk_res_request *r, const char *kinds, const char *mech, char *msg, size_t len)
{
	stk_res_request_init(r);
	if (kinds && stk_res_request_parse_kinds(r, kinds, msg, len))
		return -1;
	if (mech && stk_res_request_parse_mechanisms(r, mech, msg, len))
		return -1;
	return stk_res_request_check(r, msg, len);
}

static void kinds_parse(struct test_ctx *t)
{
	struct stk_res_request r;
	char msg[256];

	CHECK(t, parse(&r, "rss:29,block,send", NULL, msg, sizeof(msg)) == 0);
	CHECK(t, r.on[STK_RES_RSS] && r.every[STK_RES_RSS] == 29);
	CHECK(t, r.on[STK_RES_BLOCK] && r.every[STK_RES_BLOCK] == 1 && !r.on[STK_RES_BLOCK_TIME]);
	CHECK(t, r.on[STK_RES_SEND] && !r.on[STK_RES_RECV]);
	CHECK(t, stk_res_request_wants(&r, STK_RES_SRC_SOCKETS) && !stk_res_request_wants(&r, STK_RES_SRC_FILES));
	CHECK_STR(t, stk_res_kind(STK_RES_BLOCK_TIME)->type, "block_time");
	CHECK_STR(t, stk_res_kind(STK_RES_BLOCK_TIME)->unit, "microseconds");

	CHECK(t, parse(&r, "rss,disk", NULL, msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "-e: unknown kind 'disk' (expected rss, faults, block, block-time, read, write, send, recv, syscall or iorq)");
	CHECK(t, parse(&r, "rss,,write", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "an empty kind"));
	CHECK(t, parse(&r, "rss,rss", NULL, msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "-e: rss given twice");
	CHECK(t, parse(&r, "rss:0", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "N from 1 to"));
	CHECK(t, parse(&r, "rss:x", NULL, msg, sizeof(msg)) == -1);
	CHECK(t, parse(&r, "block:10,block-time:5", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "same N"));
	CHECK(t, parse(&r, "block:10,block-time:10", NULL, msg, sizeof(msg)) == 0);
	CHECK(t, parse(&r, NULL, NULL, msg, sizeof(msg)) == -1 && strstr(msg, "missing -e"));
}

static void mechanisms_parse(struct test_ctx *t)
{
	struct stk_res_request r;
	char msg[256];

	CHECK(t, parse(&r, "block-time,send,write", "block=tracepoint,send=sys_exit", msg, sizeof(msg)) == 0);
	CHECK(t, r.forced[STK_RES_SRC_BLOCK] && strcmp(r.forced[STK_RES_SRC_BLOCK], "tracepoint") == 0);
	CHECK(t, r.forced[STK_RES_SRC_SOCKETS] && strcmp(r.forced[STK_RES_SRC_SOCKETS], "sys_exit") == 0);
	CHECK(t, r.forced[STK_RES_SRC_FILES] == NULL);
	CHECK(t, parse(&r, "rss", "rss=kprobe", msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "--mechanism rss=kprobe: rss takes tp_btf, raw_tp or tracepoint");
	CHECK(t, parse(&r, "rss", "tracepoint", msg, sizeof(msg)) == -1 && strstr(msg, "KIND=MECHANISM"));
	CHECK(t, parse(&r, "block,block-time", "block=raw_tp,block-time=tracepoint", msg, sizeof(msg)) == -1 &&
		 strstr(msg, "share their events"));
	CHECK(t, parse(&r, "rss", "send=raw_tp", msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "--mechanism for send, recv, which -e does not ask for");
}

static const char block_rq_issue_format[] =
	"name: block_rq_issue\n"
	"ID: 1345\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n"
	"\tfield:void * sk;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d,%d %s\", REC->dev, REC->rwbs\n";

static int field(const char *name, struct stk_trace_field *f)
{
	FILE *in = fmemopen((void *)block_rq_issue_format, sizeof(block_rq_issue_format) - 1, "r");
	int ret = in ? stk_trace_format_field(in, name, f) : -1;

	if (in)
		fclose(in);
	return ret;
}

static void trace_format_fields(struct test_ctx *t)
{
	struct stk_trace_field f;

	CHECK(t, field("sector", &f) == 0 && f.offset == 16 && f.size == 8);
	CHECK(t, field("nr_sector", &f) == 0 && f.offset == 24 && f.size == 4);
	CHECK(t, field("rwbs", &f) == 0 && f.offset == 34 && f.size == 10);
	CHECK(t, field("cmd", &f) == 0 && f.offset == 60);
	CHECK(t, field("sk", &f) == 0 && f.offset == 64 && f.size == 8);
	/* names match whole: "sector" is not "nr_sector"'s tail, nor "dev" common_type's */
	CHECK(t, field("ector", &f) == -1);
	CHECK(t, field("type", &f) == -1);
	CHECK(t, field("error", &f) == -1);
}

static void marks_frames(struct test_ctx *t)
{
	struct stk_frame *k = calloc(2, sizeof(*k));
	struct stk_stack st = { .kernel = k, .n_kernel = 2 };

	if (!k)
		return;
	k[0] = (struct stk_frame){ .symbol = "wb_writeback", .kernel = true };
	k[1] = (struct stk_frame){ .symbol = "worker_thread", .kernel = true };
	CHECK_STR(t, stk_syscall_frame(stk_syscall_number("pwrite64")), "[sys_pwrite64]");
	CHECK_STR(t, stk_syscall_frame(stk_syscall_number("ioctl")), "[sys_ioctl]");
	CHECK_STR(t, stk_syscall_frame(-1), "[system call]");
	CHECK(t, stk_res_who_label(&st, STK_WHO_USER) == NULL);
	CHECK_STR(t, stk_res_who_label(&st, STK_WHO_KTHREAD), "[kernel thread: writeback]");
	CHECK_STR(t, stk_res_who_label(&st, STK_WHO_IO_WORKER), "[io_uring worker]");
	CHECK(t, stk_stack_mark_leaf(&st, "[block write]") == 0 && stk_stack_mark_root(&st, "[kernel thread]") == 0);
	CHECK(t, st.n_kernel == 4);
	if (st.n_kernel == 4) {
		CHECK_STR(t, st.kernel[0].symbol, "[block write]");
		CHECK_STR(t, st.kernel[1].symbol, "wb_writeback");
		CHECK_STR(t, st.kernel[2].symbol, "worker_thread");
		CHECK_STR(t, st.kernel[3].symbol, "[kernel thread]");
		CHECK(t, st.kernel[3].kernel);
	}
	free((void *)st.kernel);
	/* a stack without kernel frames gets its first */
	struct stk_stack empty = { .kernel_missing = true };
	CHECK(t, stk_stack_mark_leaf(&empty, "[sys_write]") == 0 && empty.n_kernel == 1 && !empty.kernel_missing);
	free((void *)empty.kernel);
}

const struct test_case resources_tests[] = {
	{ "resources_marks_frames", marks_frames },
	{ "resources_kinds_parse", kinds_parse },
	{ "resources_mechanisms_parse", mechanisms_parse },
	{ "resources_trace_format_fields", trace_format_fields },
	{ NULL, NULL },
};
