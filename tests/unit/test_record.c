/* stk record's kinds without a kernel: the table (every resources kind in it, its events as stk resources writes
 * them), -e KIND[:N] and its refusals, the rules the resources kinds share. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "core/record/kinds.h"

static int parse(struct stk_rec_request *r, const char *a, const char *b, char *msg, size_t len)
{
	stk_rec_request_init(r);
	if (stk_rec_request_parse(r, a, msg, len) || (b && stk_rec_request_parse(r, b, msg, len)))
		return -1;
	return stk_rec_request_check(r, msg, len);
}

static void kinds_table(struct test_ctx *t)
{
	char names[512];

	stk_rec_kind_names(names, sizeof(names));
	CHECK_STR(t, names, "cpu, offcpu, rss, faults, block, block-time, read, write, send, recv, syscall, iorq or state");
	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		struct stk_rec_kind_info i = stk_rec_kind(stk_rec_kind_of_res((enum stk_res_kind)k));

		CHECK(t, i.source == STK_REC_RESOURCES && i.res_kind == (enum stk_res_kind)k && i.rate == STK_REC_RATE_EVERY);
		CHECK_STR(t, i.name, stk_res_kind((enum stk_res_kind)k)->name);
	}
	struct stk_event_desc e = stk_res_event_desc(STK_RES_SYSCALL);
	CHECK_STR(t, e.event, "syscall");
	CHECK_STR(t, e.unit, "nanoseconds");
	CHECK_STR(t, e.value.unit, "microseconds");
	CHECK(t, e.divisor == 1000 && e.columns == STK_EV_FILLS_SYSCALL);
	CHECK(t, stk_res_event_desc(STK_RES_IORQ).columns == STK_EV_FILLS_BLOCK);
	CHECK(t, stk_res_event_desc(STK_RES_RSS).columns == 0);
	CHECK_STR(t, stk_rec_kind(STK_REC_KIND_OFFCPU).event.value.unit, "microseconds");
	CHECK_STR(t, stk_rec_kind(STK_REC_KIND_STATE).event.event, "state");
}

static void kinds_parse(struct test_ctx *t)
{
	struct stk_rec_request r;
	struct stk_res_request res;
	char msg[512];

	CHECK(t, parse(&r, "cpu:99,offcpu,rss:29", "state", msg, sizeof(msg)) == 0);
	CHECK(t, r.on[STK_REC_KIND_CPU] && r.rate[STK_REC_KIND_CPU] == 99 && r.on[STK_REC_KIND_OFFCPU]);
	CHECK(t, r.on[STK_REC_KIND_STATE] && r.rate[STK_REC_KIND_STATE] == 1); /* its default */
	stk_res_request_init(&res);
	stk_rec_request_resources(&r, &res);
	CHECK(t, res.on[STK_RES_RSS] && res.every[STK_RES_RSS] == 29 && !res.on[STK_RES_BLOCK]);
	/* the same kind twice alike is once */
	CHECK(t, parse(&r, "cpu:99", "cpu:99,cpu", msg, sizeof(msg)) == 0 && r.rate[STK_REC_KIND_CPU] == 99);
	CHECK(t, parse(&r, "cpu:99,cpu:49", NULL, msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "-e: cpu given twice with different rates (99 and 49)");
	CHECK(t, parse(&r, "cpu,disk", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "unknown kind 'disk' (expected cpu, "));
	/* offcpu:N takes one switch-out in N; the file says how (stk.sampled) */
	CHECK(t, parse(&r, "offcpu:8", NULL, msg, sizeof(msg)) == 0 && r.rate[STK_REC_KIND_OFFCPU] == 8);
	struct stk_event_desc d = { 0 };
	stk_rec_event_sampling(&d, STK_REC_KIND_OFFCPU, 8);
	CHECK(t, d.every == 8 && d.taken && strcmp(d.taken, "at random gaps on each CPU (N/2 to 3N/2)") == 0);
	d = (struct stk_event_desc){ 0 };
	stk_rec_event_sampling(&d, STK_REC_KIND_CPU, 99); /* a rate a second samples nothing away */
	CHECK(t, d.every == 0 && !d.taken);
	CHECK(t, parse(&r, "offcpu:0", NULL, msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "-e offcpu: expected offcpu:N with N from 1 to 1000 (one event in N, its weight N times)");
	/* the flight recorder's set when no -e is given */
	stk_rec_request_init(&r);
	CHECK(t, stk_rec_request_empty(&r));
	CHECK(t, stk_rec_request_parse(&r, STK_REC_DEFAULT_KINDS, msg, sizeof(msg)) == 0 && !stk_rec_request_empty(&r));
	CHECK(t, r.on[STK_REC_KIND_CPU] && r.on[STK_REC_KIND_OFFCPU] && r.on[STK_REC_KIND_STATE] &&
		 r.rate[STK_REC_KIND_OFFCPU] > 1);
	CHECK(t, parse(&r, "cpu:0", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "cpu:N with N from 1 to 100000"));
	CHECK(t, parse(&r, "state:2000", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "from 1 to 1000"));
	CHECK(t, parse(&r, "cpu,,rss", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "an empty kind"));
	CHECK(t, parse(&r, "block:2,iorq:3", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "same N"));
	/* a probe is any of stackcount's patterns (no kind's name before its ':'), one a recording */
	CHECK(t, parse(&r, "cpu,c:malloc", "c:malloc", msg, sizeof(msg)) == 0 && r.on[STK_REC_KIND_PROBE]);
	CHECK_STR(t, r.probe, "c:malloc");
	CHECK(t, parse(&r, "p:vfs_read", NULL, msg, sizeof(msg)) == 0);
	CHECK_STR(t, r.probe, "p:vfs_read");
	CHECK(t, parse(&r, "u:readloop:tick,cpu", NULL, msg, sizeof(msg)) == 0 && r.on[STK_REC_KIND_CPU]);
	CHECK_STR(t, r.probe, "u:readloop:tick");
	CHECK(t, parse(&r, "t:sched:sched_switch", "c:free", msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "-e c:free: one probe pattern a recording (t:sched:sched_switch given already; wildcards take many)");
	CHECK(t, parse(&r, "vfs_read", NULL, msg, sizeof(msg)) == -1 && strstr(msg, "unknown kind 'vfs_read'") &&
		 strstr(msg, "or a probe: t:CATEGORY:EVENT, p:FUNC, LIB:FUNC, u:LIB:PROBE)"));
	stk_rec_request_init(&r);
	CHECK(t, stk_rec_request_check(&r, msg, sizeof(msg)) == -1 && strstr(msg, "missing -e"));
}

const struct test_case record_tests[] = {
	{ "kinds_table", kinds_table },
	{ "kinds_parse", kinds_parse },
	{ NULL, NULL },
};
