/*
 * The event log without a kernel: frames text round trips every field any
 * format prints (and refuses what it did not write); a recording of the
 * output fixture's stacks renders exactly as the fixture report does, in
 * every stack format; windows cut intervals and pick samples; totals keep
 * threads apart as the capture did and divide as it did; timelines nest;
 * --from/--to and --span parse; the key index finds what it was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "test_output_fixture.h"
#include "core/base/bytes.h"
#include "core/base/key_index.h"
#include "core/base/utf8.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_render.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_totals.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/frames_codec.h"
#include "core/eventlog/time_arg.h"
#include "core/parquet/parquet_reader.h"
#include "core/eventlog/timeline_build.h"
#include "core/probe/span_spec.h"

#define T0 1700000000000000000LL
#define MS 1000000LL

static bool frames_equal(const struct stk_frame *a, const struct stk_frame *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct stk_frame *x = &a[i], *y = &b[i];
		const char *xs[] = { x->symbol, x->module, x->build_id, x->found_by, x->file };
		const char *ys[] = { y->symbol, y->module, y->build_id, y->found_by, y->file };

		for (size_t k = 0; k < 5; k++)
			if ((xs[k] == NULL) != (ys[k] == NULL) || (xs[k] && strcmp(xs[k], ys[k])))
				return false;
		if (x->address != y->address || x->symbol_offset != y->symbol_offset || x->map_start != y->map_start ||
		    x->map_end != y->map_end || x->map_offset != y->map_offset || x->kernel != y->kernel ||
		    x->main_exe != y->main_exe || x->synthetic != y->synthetic || x->line != y->line ||
		    x->n_inlined != y->n_inlined)
			return false;
		for (size_t k = 0; k < x->n_inlined; k++)
			if (strcmp(x->inlined[k].symbol, y->inlined[k].symbol) || x->inlined[k].line != y->inlined[k].line ||
			    (x->inlined[k].file == NULL) != (y->inlined[k].file == NULL) ||
			    (x->inlined[k].file && strcmp(x->inlined[k].file, y->inlined[k].file)))
				return false;
	}
	return true;
}

static void frames_round_trip(struct test_ctx *t)
{
	static const struct stk_inline_frame inl[] = { { "inner\tfn", "/src/a.c", 12 }, { "outer", NULL, 0 } };
	const struct stk_frame kernel[] = {
		{ .symbol = "[still off-CPU]" }, /* a kernel-array frame without the kernel flag */
		{ .symbol = "do_sys", .module = "ext4", .address = 0xffffffff81000010, .symbol_offset = 0x10, .kernel = true },
	};
	const struct stk_frame user[] = {
		{ .symbol = "a\\b\nc \xff\x01 \xc3\xa9", .module = "/bin/x", .build_id = "abcd", .address = 0x401000,
		  .symbol_offset = 4, .map_start = 0x400000, .map_end = 0x500000, .map_offset = 0x1000, .main_exe = true,
		  .found_by = "cfi", .inlined = inl, .n_inlined = 2, .file = "/src/a.c", .line = 40 },
		{ .symbol = NULL, .module = NULL, .address = 0x7f0000001234, .synthetic = true },
		{ .symbol = "", .module = "", .address = 1 },
	};
	const struct stk_stack st = { .kernel = kernel, .n_kernel = 2, .user = user, .n_user = 3, .user_missing = true,
				      .unwind_stop = "outermost frame" };
	struct stk_buf b = { 0 };
	struct stk_stack back = { 0 };
	struct stk_decoded_frames *owner;
	char err[256];

	stk_frames_encode(&b, &st);
	CHECK(t, !b.oom && stk_utf8_valid((const char *)b.data, b.len));
	CHECK(t, memchr(b.data, '\t', b.len) != NULL && !memchr(b.data, '\r', b.len));
	CHECK(t, stk_frames_decode((const char *)b.data, b.len, &back, &owner, err, sizeof(err)) == 0);
	CHECK(t, back.n_kernel == 2 && back.n_user == 3 && back.user_missing && !back.kernel_missing);
	CHECK(t, back.unwind_stop && strcmp(back.unwind_stop, "outermost frame") == 0);
	CHECK(t, back.n_kernel == 2 && frames_equal(kernel, back.kernel, 2));
	CHECK(t, back.n_user == 3 && frames_equal(user, back.user, 3));
	stk_frames_free(owner);
	stk_buf_free(&b);
}

/* A byte that needs escaping (or a UTF-8 sequence that does not) at every position of a name,
 * across the encoder's eight-byte steps: decoded back as it was. */
static void frames_escape_every_position(struct test_ctx *t)
{
	static const char *const specials[] = { "\\", "\n", "\t", "\x01", "\x7f", "\xff", "\xc3\xa9", "\x80" };
	bool right = true;

	for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++)
		for (size_t pos = 0; pos <= 20; pos++) {
			char name[64];
			struct stk_frame f = { .symbol = name, .module = "/m", .address = 0x1000 };
			const struct stk_stack st = { .user = &f, .n_user = 1 };
			struct stk_buf b = { 0 };
			struct stk_stack back = { 0 };
			struct stk_decoded_frames *owner = NULL;
			char err[256];

			snprintf(name, sizeof(name), "%.*s%s%.*s", (int)pos, "aaaaaaaaaaaaaaaaaaaaa", specials[k],
				 (int)(20 - pos), "bbbbbbbbbbbbbbbbbbbbb");
			stk_frames_encode(&b, &st);
			right &= !b.oom && stk_utf8_valid((const char *)b.data, b.len);
			right &= stk_frames_decode((const char *)b.data, b.len, &back, &owner, err, sizeof(err)) == 0 &&
				 back.n_user == 1 && back.user[0].symbol && strcmp(back.user[0].symbol, name) == 0;
			stk_frames_free(owner);
			stk_buf_free(&b);
		}
	CHECK(t, right);
}

static void frames_refusals(struct test_ctx *t)
{
	static const char *const bad[] = {
		"",
		"stk-frames 2\t0\t0\t\\N",
		"stk-frames 1\t0\t0",
		"stk-frames 1\t2\t0\t\\N",
		"stk-frames 1\t0\t0\t\\N\nx\t-\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0\nk\t-\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\ni\tf\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\tzz\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\t1\t0\t0\t0\t0\t\\q\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\t1\t0\t0\t0\t0\t\\x00\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0\textra",
		"stk-frames 1\t0\t0\t\\N\nu\tq\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t0",
		"stk-frames 1\t0\t0\t\\N\nu\t-\t1\t0\t0\t0\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t99999999999",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct stk_stack st = { 0 };
		struct stk_decoded_frames *owner = (void *)1;
		char err[256] = "";

		if (stk_frames_decode(bad[i], strlen(bad[i]), &st, &owner, err, sizeof(err)) == 0) {
			printf("  frames text %zu was taken\n", i);
			t->failures++;
			stk_frames_free(owner);
			continue;
		}
		CHECK(t, owner == NULL && err[0] && !strchr(err, '\n'));
	}
}

/* A recording in memory: the meta keys a capture writes, then rows from fill(). */
struct recording {
	int fd;
	struct stk_ev_writer *w;
	char texts[16][512];
	struct stk_buf frames[16];
	struct stk_ev_stack_ref refs[16];
	size_t n_refs;
};

static bool recording_open(struct recording *r, const struct stk_report *rep, const char *event, bool per_thread,
			   const char *divisor, uint32_t group_rows)
{
	const struct stk_pq_writer_opts o = { .row_group_rows = group_rows };
	char err[256];
	FILE *f;

	memset(r, 0, sizeof(*r));
	r->fd = memfd_create("eventlog", MFD_CLOEXEC);
	f = r->fd >= 0 ? fdopen(dup(r->fd), "w") : NULL;
	if (!f || !(r->w = stk_ev_writer_new(f, &o, err, sizeof(err)))) {
		if (f)
			fclose(f);
		return false;
	}
	stk_ev_writer_meta(r->w, STK_EV_META_APPLET, "test");
	stk_ev_writer_meta(r->w, STK_EV_META_EVENT, event);
	stk_ev_writer_meta(r->w, STK_EV_META_START, "1700000000000000000");
	stk_ev_writer_meta(r->w, STK_EV_META_DURATION, "5000000000");
	stk_ev_writer_meta(r->w, STK_EV_META_PER_THREAD, per_thread ? "1" : "0");
	stk_ev_writer_meta(r->w, STK_EV_META_DIVISOR, divisor);
	stk_ev_writer_meta(r->w, STK_EV_META_SAMPLE_NS, "10101010");
	stk_ev_writer_meta(r->w, STK_EV_META_LOST, "0");
	stk_ev_writer_meta(r->w, STK_EV_META_PERIOD, "10101010");
	stk_ev_writer_meta(r->w, STK_EV_META_OUTPUT, "");
	const char *const report_meta[][2] = {
		{ STK_EV_META_TITLE, rep->title },		{ STK_EV_META_VALUE_TYPE, rep->value_type },
		{ STK_EV_META_VALUE_UNIT, rep->value_unit },	{ STK_EV_META_PERIOD_TYPE, rep->period_type },
		{ STK_EV_META_PERIOD_UNIT, rep->period_unit },
	};
	for (size_t i = 0; i < sizeof(report_meta) / sizeof(report_meta[0]); i++)
		if (report_meta[i][1]) /* a capture leaves out what its report does not have */
			stk_ev_writer_meta(r->w, report_meta[i][0], report_meta[i][1]);
	return true;
}

static const struct stk_ev_stack_ref *recording_stack(struct recording *r, const struct stk_stack *st)
{
	const struct stk_output_opts plain = { 0 };
	char *text = stk_folded_stack(st, &plain);
	size_t i = r->n_refs++;

	snprintf(r->texts[i], sizeof(r->texts[i]), "%s", text ? text : "");
	free(text);
	stk_frames_encode(&r->frames[i], st);
	r->refs[i] = (struct stk_ev_stack_ref){ .id = (int64_t)i + 1, .text = r->texts[i], .text_len = strlen(r->texts[i]),
						.frames = (const char *)r->frames[i].data, .frames_len = r->frames[i].len };
	return &r->refs[i];
}

static bool recording_close(struct recording *r)
{
	char err[256];
	bool ok = stk_ev_writer_close(r->w, err, sizeof(err)) == 0;

	for (size_t i = 0; i < r->n_refs; i++)
		stk_buf_free(&r->frames[i]);
	if (!ok)
		printf("  closing the recording: %s\n", err);
	return ok;
}

/* The fixture's stacks as events: each stack's value in rows of weight 1, a row group of 3 rows. */
static int fixture_recording(struct test_ctx *t)
{
	struct stk_report rep;
	struct recording r;
	int64_t time = T0;

	output_fixture(&rep);
	if (!recording_open(&r, &rep, "cpu", true, "1", 3)) {
		CHECK(t, !"recording opened");
		return -1;
	}
	for (size_t i = 0; i < rep.n_stacks; i++) {
		const struct stk_stack *st = &rep.stacks[i];
		const struct stk_ev_stack_ref *ref = recording_stack(&r, st);

		for (uint64_t k = 0; k < st->value; k++) {
			struct stk_ev_row row = { .time = time, .pid = st->pid, .tid = st->tid, .comm = st->comm, .event = "cpu",
						  .weight = 1, .unit = "count", .stack = ref };

			time += 10 * MS;
			CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
		}
	}
	CHECK(t, recording_close(&r));
	return r.fd;
}

/* The rendering (binary for pprof: its length in *len when len is not NULL). */
static char *render_len(int fd, const struct stk_ev_filter *flt, enum stk_format f, int *rc, size_t *len)
{
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	*rc = stk_ev_render(fd, flt, f, out, err, sizeof(err));
	fclose(out);
	if (len)
		*len = n;
	return buf;
}

static char *render(int fd, const struct stk_ev_filter *flt, enum stk_format f, int *rc)
{
	return render_len(fd, flt, f, rc, NULL);
}

static void report_equals_totals(struct test_ctx *t)
{
	const enum stk_format formats[] = { STK_FORMAT_TEXT, STK_FORMAT_FOLDED, STK_FORMAT_PMP, STK_FORMAT_PPROF,
					    STK_FORMAT_SVG };
	int fd = fixture_recording(t);
	struct stk_ev_filter all;
	struct stk_report rep;

	if (fd < 0)
		return;
	output_fixture(&rep);
	stk_ev_filter_all(&all);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct stk_output_opts o = { .format = formats[i] };
		size_t want_len, got_len;
		int rc, want_rc;
		char *want = output_render(&rep, &o, &want_len, &want_rc);
		char *got = render_len(fd, &all, formats[i], &rc, &got_len);

		CHECK(t, rc == 0 && want_rc == 0);
		if (!got || !want || got_len != want_len || memcmp(got, want, want_len)) {
			printf("  format %s: the recording renders differently from the fixture\n", stk_format_name(formats[i]));
			t->failures++;
		}
		free(want);
		free(got);
	}
	close(fd);
}

static void report_filters(struct test_ctx *t)
{
	int fd = fixture_recording(t), rc;
	struct stk_ev_filter f;
	const uint32_t pid[] = { 200 };
	char *out;

	if (fd < 0)
		return;
	stk_ev_filter_all(&f);
	f.pids = pid;
	f.n_pids = 1;
	out = render(fd, &f, STK_FORMAT_FOLDED, &rc);
	CHECK_STR(t, out ? out : "", "worker;main;compute(double) 4\n");
	free(out);
	/* rows 6 and 7 (time T0 + 50 ms, 60 ms) are the second stack's */
	stk_ev_filter_all(&f);
	f.from = T0 + 50 * MS;
	f.to = T0 + 70 * MS;
	out = render(fd, &f, STK_FORMAT_FOLDED, &rc);
	CHECK_STR(t, out ? out : "", "worker;main;compute(double) 2\n");
	free(out);
	stk_ev_filter_all(&f);
	f.event = "offcpu";
	out = render(fd, &f, STK_FORMAT_FOLDED, &rc);
	CHECK(t, rc == 0 && out && !out[0]);
	free(out);
	close(fd);
}

/* Off-CPU intervals of one stack over [0, 100 ms), [200, 300 ms); spans around them. */
static int interval_recording(struct test_ctx *t, bool per_thread)
{
	static const struct stk_frame k[] = { { .symbol = "schedule", .kernel = true } };
	static const struct stk_frame u[] = { { .symbol = "wait_here" }, { .symbol = "main" } };
	const struct stk_stack st = { .kernel = k, .n_kernel = 1, .user = u, .n_user = 2 };
	const struct stk_report rep = { .title = "off", .value_type = "offcpu", .value_unit = "microseconds" };
	struct recording r;

	if (!recording_open(&r, &rep, "offcpu", per_thread, "1000", 0)) {
		CHECK(t, !"recording opened");
		return -1;
	}
	const struct stk_ev_stack_ref *ref = recording_stack(&r, &st);
	const struct stk_ev_row rows[] = {
		{ .time = T0, .pid = 5, .tid = 6, .comm = "w", .event = "offcpu", .weight = 100 * MS, .unit = "nanoseconds",
		  .stack = ref, .span = "req=1", .state = 'S' },
		{ .time = T0 + 200 * MS, .pid = 5, .tid = 7, .comm = "w", .event = "offcpu", .weight = 100 * MS,
		  .unit = "nanoseconds", .stack = ref, .state = 'D' },
		{ .time = T0 - 10 * MS, .pid = 5, .tid = 6, .comm = "w", .event = "span", .weight = 150 * MS,
		  .unit = "nanoseconds", .span = "req=1" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(t, stk_ev_writer_add(r.w, &rows[i]) == 0);
	CHECK(t, recording_close(&r));
	return r.fd;
}

static uint64_t total_of(struct test_ctx *t, int fd, const struct stk_ev_filter *flt, size_t *entries)
{
	char err[256];
	struct stk_ev_file *f = stk_ev_open(fd, err, sizeof(err));
	struct stk_ev_totals tot;
	uint64_t sum = 0;

	*entries = 0;
	CHECK(t, f != NULL);
	if (!f)
		return 0;
	CHECK(t, stk_ev_totals_read(f, flt, false, &tot, err, sizeof(err)) == 0);
	for (size_t i = 0; i < tot.n; i++)
		sum += tot.stacks[i].value;
	*entries = tot.n;
	stk_ev_totals_free(&tot);
	stk_ev_close(f);
	return sum;
}

static void totals_cut_intervals(struct test_ctx *t)
{
	int fd = interval_recording(t, false), fd2 = interval_recording(t, true);
	struct stk_ev_filter f;
	size_t n;

	if (fd < 0 || fd2 < 0)
		return;
	stk_ev_filter_all(&f);
	CHECK(t, total_of(t, fd, &f, &n) == 200000 && n == 1); /* microseconds, threads together */
	CHECK(t, total_of(t, fd2, &f, &n) == 200000 && n == 2); /* per thread: apart */
	f.from = T0 + 50 * MS;
	f.to = T0 + 250 * MS;
	CHECK(t, total_of(t, fd, &f, &n) == 100000 && n == 1); /* 50 ms of each */
	f.span = "req";
	CHECK(t, total_of(t, fd, &f, &n) == 50000);
	f.span = "req=2";
	CHECK(t, total_of(t, fd, &f, &n) == 0 && n == 0);
	close(fd);
	close(fd2);
}

static void timelines_nest(struct test_ctx *t)
{
	int fd = interval_recording(t, true), rc;
	struct stk_ev_filter all;
	char *ss, *tr;

	if (fd < 0)
		return;
	stk_ev_filter_all(&all);
	ss = render(fd, &all, STK_FORMAT_SPEEDSCOPE, &rc);
	CHECK(t, rc == 0 && ss && strstr(ss, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	CHECK(t, ss && strstr(ss, "{\"name\":\"span req=1\"}") && strstr(ss, "{\"name\":\"offcpu S\"}"));
	CHECK(t, ss && strstr(ss, "\"type\":\"evented\",\"name\":\"w (5/6)\""));
	/* thread 6: the span opens at 0, the interval inside it at 10 ms */
	CHECK(t, ss && strstr(ss, "\"type\":\"O\",\"frame\":") && strstr(ss, ",\"at\":10000000}"));
	tr = render(fd, &all, STK_FORMAT_TRACE, &rc);
	CHECK(t, rc == 0 && tr && strstr(tr, "\"name\":\"thread_name\",\"pid\":5,\"tid\":7"));
	CHECK(t, tr && strstr(tr, "\"ts\":0.000,\"cat\":\"span\",\"name\":\"req=1\""));
	CHECK(t, tr && strstr(tr, "\"ts\":10000.000,\"cat\":\"offcpu\",\"name\":\"offcpu S\""));
	size_t b = 0, e = 0;
	for (const char *p = tr; p && (p = strstr(p, "\"ph\":\"")); p += 6)
		*(p[6] == 'B' ? &b : p[6] == 'E' ? &e : &(size_t){ 0 }) += 1;
	CHECK(t, b == e && b == 1 + 2 * 4); /* the span; each interval with its three frames */
	free(ss);
	free(tr);
	close(fd);
}

/*
 * A recording of two kinds (stk.kinds: rss in bytes, syscall in ns shown as
 * microseconds), their rows with the added columns: 3 rss rows of 4096
 * bytes, 2 calls of 5 ms (read, nr 0) by thread 11 of process 10.
 */
static int kinds_recording(struct test_ctx *t)
{
	struct stk_report rep;
	struct recording r;
	const struct stk_frame leaf = { .symbol = "work", .module = "/bin/w", .address = 0x1000 };
	const struct stk_stack st = { .pid = 10, .tid = 11, .comm = "w", .user = &leaf, .n_user = 1 };

	output_fixture(&rep);
	rep.value_type = "rss";
	rep.value_unit = "bytes";
	if (!recording_open(&r, &rep, "rss", true, "1", 2)) {
		CHECK(t, !"recording opened");
		return -1;
	}
	stk_ev_writer_meta(r.w, STK_EV_META_KINDS, "rss\tbytes\trss\tbytes\t1\t0\t3\n"
						   "syscall\tnanoseconds\tsyscall\tmicroseconds\t1000\t0\t0");
	const struct stk_ev_stack_ref *ref = recording_stack(&r, &st);
	for (int i = 0; i < 5; i++) {
		bool call = i >= 3;
		struct stk_ev_row row = { .time = T0 + i * MS, .pid = 10, .tid = 11, .comm = "w",
					  .event = call ? "syscall" : "rss", .unit = call ? "nanoseconds" : "bytes",
					  .weight = call ? 5 * MS : 4096, .stack = ref, .syscall = call ? 1 : 0,
					  .device = call ? NULL : "vda", .has_bytes = !call, .bytes = 512, .op = call ? NULL : "write",
					  .wchan = call ? "do_sys_poll" : NULL, .state_name = call ? "SLEEP" : NULL };

		CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
	}
	CHECK(t, recording_close(&r));
	return r.fd;
}

struct added_seen {
	int syscalls, devices, states;
	uint32_t kinds_seen;
};

static int see_added(void *ctx, const struct stk_ev_event *ev)
{
	struct added_seen *a = ctx;

	a->kinds_seen |= ev->kind < 32 ? 1u << ev->kind : 0;
	if (ev->syscall && strcmp(ev->syscall, "read") == 0 && ev->syscall_nr == 0 && ev->interval)
		a->syscalls++;
	if (ev->device && strcmp(ev->device, "vda") == 0 && ev->bytes == 512 && ev->op && strcmp(ev->op, "write") == 0)
		a->devices++;
	if (ev->state_name && strcmp(ev->state_name, "SLEEP") == 0 && ev->wchan && strcmp(ev->wchan, "do_sys_poll") == 0)
		a->states++;
	return 0;
}

static void kinds_apart(struct test_ctx *t)
{
	int fd = kinds_recording(t), rc;
	struct stk_ev_filter all, rss;
	struct added_seen seen = { 0 };
	char err[256], *text, *folded, *one, *trace;

	if (fd < 0)
		return;
	stk_ev_filter_all(&all);
	struct stk_ev_file *f = stk_ev_open(fd, err, sizeof(err));
	CHECK(t, f != NULL);
	if (f) {
		const struct stk_ev_meta *m = stk_ev_meta(f);

		CHECK(t, m->n_kinds == 2 && m->report.n_types == 2 && m->kinds[1].divisor == 1000 && m->kinds[0].lost == 3);
		CHECK(t, stk_ev_each(f, &all, see_added, &seen, err, sizeof(err)) == 0);
		CHECK(t, seen.syscalls == 2 && seen.devices == 3 && seen.states == 2 && seen.kinds_seen == 3);
		stk_ev_close(f);
	}
	/* each kind its own value type, divided by its own divisor */
	text = render(fd, &all, STK_FORMAT_TEXT, &rc);
	CHECK(t, rc == 0 && text && strstr(text, "rss (bytes):") && strstr(text, "syscall (microseconds):"));
	folded = render(fd, &all, STK_FORMAT_FOLDED, &rc);
	CHECK(t, rc == 0 && folded && strstr(folded, "rss;w;work 12288\n") && strstr(folded, "syscall;w;work 10000\n"));
	/* one kind alone prints as a capture of it would */
	rss = all;
	rss.event = "rss";
	one = render(fd, &rss, STK_FORMAT_FOLDED, &rc);
	CHECK(t, rc == 0 && one && strcmp(one, "w;work 12288\n") == 0);
	/* a track per kind */
	trace = render(fd, &all, STK_FORMAT_TRACE, &rc);
	CHECK(t, rc == 0 && trace && strstr(trace, "\"name\":\"w [rss]\"") && strstr(trace, "\"name\":\"w [syscall]\""));
	CHECK(t, trace && strstr(trace, "\"tid\":33554443")); /* 11 | 2 << 24: syscall's track */
	free(text);
	free(folded);
	free(one);
	free(trace);
	close(fd);
}

/* Two recordings as one, in the time order of their events; and a difference of them. */
static void many_files_and_differences(struct test_ctx *t)
{
	int a = fixture_recording(t), b = fixture_recording(t), rc;
	struct stk_ev_filter all;
	char err[256], *one = NULL, *two = NULL, *diff = NULL, *svg = NULL;
	size_t n1 = 0, n2 = 0, nd = 0, ns = 0;

	if (a < 0 || b < 0)
		return;
	stk_ev_filter_all(&all);
	int fds[] = { a, b };
	struct stk_ev_source src1 = { .fds = fds, .n = 1, .flt = &all }, src2 = { .fds = fds, .n = 2, .flt = &all };
	FILE *o1 = open_memstream(&one, &n1), *o2 = open_memstream(&two, &n2);
	CHECK(t, stk_ev_render_many(&src1, STK_FORMAT_FOLDED, o1, err, sizeof(err)) == 0);
	CHECK(t, stk_ev_render_many(&src2, STK_FORMAT_FOLDED, o2, err, sizeof(err)) == 0);
	fclose(o1);
	fclose(o2);
	/* every line of two alike files: twice its value in one */
	bool doubled = one && two;
	for (char *p = one, *q = two; doubled && *p && *q; p = strchr(p, '\n') + 1, q = strchr(q, '\n') + 1) {
		char lp[1024], lq[1024];

		snprintf(lp, sizeof(lp), "%.*s", (int)(strchr(p, '\n') - p), p);
		snprintf(lq, sizeof(lq), "%.*s", (int)(strchr(q, '\n') - q), q);
		doubled = strrchr(lp, ' ') && strrchr(lq, ' ') &&
			  strtoull(strrchr(lq, ' ') + 1, NULL, 10) == 2 * strtoull(strrchr(lp, ' ') + 1, NULL, 10);
	}
	CHECK(t, doubled && n2 > 0);
	/* a recording against itself: each line's base is its value */
	FILE *od = open_memstream(&diff, &nd), *os = open_memstream(&svg, &ns);
	struct stk_ev_source base = { .fds = &a, .n = 1, .flt = &all }, now = { .fds = &b, .n = 1, .flt = &all };
	CHECK(t, stk_ev_render_diff(&base, &now, STK_FORMAT_FOLDED, od, err, sizeof(err)) == 0);
	CHECK(t, stk_ev_render_diff(&base, &now, STK_FORMAT_SVG, os, err, sizeof(err)) == 0);
	rc = stk_ev_render_diff(&base, &now, STK_FORMAT_TEXT, stdout, err, sizeof(err));
	CHECK(t, rc == STK_EV_RENDER_BAD_INPUT && strstr(err, "folded, svg or pprof"));
	fclose(od);
	fclose(os);
	size_t lines = 0, equal = 0;
	for (char *p = diff; p && *p; p = strchr(p, '\n') + 1, lines++) {
		unsigned long long x, y;
		char *end = strchr(p, '\n'), *last = p, *prev = p;

		for (char *c = p; c < end; c++)
			if (*c == ' ') {
				prev = last;
				last = c;
			}
		equal += sscanf(prev, " %llu %llu", &x, &y) == 2 && x == y && x > 0;
	}
	CHECK(t, lines > 0 && equal == lines);
	/* nothing grew or shrank: every frame but the root unchanged, white */
	CHECK(t, svg && strstr(svg, "rgb(255,210,210)") && !strstr(svg, "rgb(255,0,0)"));
	free(one);
	free(two);
	free(diff);
	free(svg);
	close(a);
	close(b);
}

static void refuses_other_files(struct test_ctx *t)
{
	struct stk_report rep = { .title = "x" };
	struct recording r;
	char err[256];

	/* a file with the columns but no stk metadata */
	const struct stk_pq_writer_opts o = { 0 };
	int fd = memfd_create("foreign", MFD_CLOEXEC);
	FILE *f = fdopen(dup(fd), "w");
	struct stk_pq_writer *w = stk_pq_writer_new(f, stk_ev_columns, STK_EV_COLS, &o, err, sizeof(err));

	CHECK(t, w && stk_pq_writer_close(w, err, sizeof(err)) == 0);
	fclose(f);
	struct stk_ev_file *ef = stk_ev_open(fd, err, sizeof(err));
	CHECK(t, ef == NULL && strstr(err, "not an stk event log"));
	stk_ev_close(ef);
	close(fd);
	/* a row whose stack's frames are not frames stk writes */
	if (!recording_open(&r, &rep, "cpu", false, "1", 0))
		return;
	const char *junk = "stk-frames 1\t0\t0\t\\N\ngarbage";
	const struct stk_ev_stack_ref ref = { .id = 9, .text = "a", .text_len = 1, .frames = junk, .frames_len = strlen(junk) };
	const struct stk_ev_row row = { .time = T0, .comm = "c", .event = "cpu", .weight = 1, .unit = "count", .stack = &ref };
	CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
	CHECK(t, recording_close(&r));
	struct stk_ev_filter all;
	int rc;
	stk_ev_filter_all(&all);
	free(render(r.fd, &all, STK_FORMAT_FOLDED, &rc));
	CHECK(t, rc == STK_EV_RENDER_BAD_INPUT);
	close(r.fd);
}

/* A stack's text and frames are needed once per row group: other rows may carry its id alone. */
/* A stack's text and frames go once in each row group of 3 rows, its id small (the writer
 * looks it up directly) or not (hashed). */
static void strings_once_per_group_as(struct test_ctx *t, int64_t id)
{
	static const struct stk_frame u[] = { { .symbol = "leaf" }, { .symbol = "main" } };
	const struct stk_stack st = { .user = u, .n_user = 2 };
	struct stk_report rep = { .title = "x" };
	struct recording r;
	size_t needed = 0;

	if (!recording_open(&r, &rep, "cpu", false, "1", 3))
		return;
	struct stk_ev_stack_ref full = *recording_stack(&r, &st);
	full.id = id;
	for (int i = 0; i < 10; i++) {
		struct stk_ev_stack_ref bare = { .id = full.id, .text_len = full.text_len, .frames_len = full.frames_len };
		bool has = stk_ev_writer_has_stack(r.w, full.id);
		const struct stk_ev_row row = { .time = T0 + i, .pid = 1, .tid = 1, .comm = "c", .event = "cpu", .weight = 1,
						.unit = "count", .stack = has ? &bare : &full };

		needed += !has;
		CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
	}
	CHECK(t, needed == 4); /* groups of 3 rows: 3 + 3 + 3 + 1 */
	CHECK(t, recording_close(&r));
	struct stk_ev_filter all;
	int rc;
	stk_ev_filter_all(&all);
	char *out = render(r.fd, &all, STK_FORMAT_FOLDED, &rc);
	CHECK_STR(t, out ? out : "", "c;main;leaf 10\n");
	free(out);
	close(r.fd);
}

static void strings_once_per_group(struct test_ctx *t)
{
	strings_once_per_group_as(t, 1);
	strings_once_per_group_as(t, 70000);
	strings_once_per_group_as(t, (int64_t)1 << 40);
}

/*
 * A file of a long series starts at a large id (each file numbers its
 * stacks anew): ids above its first are looked up directly, one below it
 * (a stack numbered before) hashed, each known once per row group.
 */
static void ids_around_the_files_first(struct test_ctx *t)
{
	static const struct stk_frame u[] = { { .symbol = "leaf" }, { .symbol = "main" } };
	const struct stk_stack st = { .user = u, .n_user = 2 };
	const int64_t ids[] = { 5000000000LL, 5000000007LL, 3, 5000000000LL, 3, 5000000007LL };
	const bool had[] = { false, false, false, true, true, true };
	struct stk_report rep = { .title = "x" };
	struct recording r;

	if (!recording_open(&r, &rep, "cpu", false, "1", 6))
		return;
	struct stk_ev_stack_ref full = *recording_stack(&r, &st);
	for (size_t i = 0; i < 2 * sizeof(ids) / sizeof(ids[0]); i++) {
		size_t at = i % 6;
		struct stk_ev_stack_ref ref = full;
		bool has;

		ref.id = ids[at];
		has = stk_ev_writer_has_stack(r.w, ref.id);
		CHECK(t, has == had[at]); /* the second group of 6 starts over */
		const struct stk_ev_row row = { .time = T0 + (int64_t)i, .pid = 1, .tid = 1, .comm = "c", .event = "cpu",
						.weight = 1, .unit = "count", .stack = &ref };

		CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
	}
	CHECK(t, recording_close(&r));
	struct stk_ev_filter all;
	int rc;
	stk_ev_filter_all(&all);
	char *out = render(r.fd, &all, STK_FORMAT_FOLDED, &rc);
	CHECK_STR(t, out ? out : "", "c;main;leaf 12\n");
	free(out);
	close(r.fd);
}

/* How many frames values of the file refer to lines stored before them (frame_lines.h). */
static size_t frames_with_references(int fd)
{
	char err[256];
	size_t refs = 0, len;
	struct stk_pq_reader *pq = stk_pq_reader_open(fd, stk_ev_columns, STK_EV_COLS, err, sizeof(err));

	while (pq && stk_pq_reader_next_group(pq) > 0)
		while (stk_pq_reader_next_row(pq) > 0) {
			const char *f = stk_pq_reader_string(pq, STK_EV_FRAMES, &len);

			refs += f && memmem(f, len, "\n=", 2) != NULL;
		}
	stk_pq_reader_close(pq);
	return refs;
}

/* Two stacks sharing their caller, alternating over row groups of 3 rows: the lines are
 * stored once per group, referred to after, and read back whole in every group. */
static void frame_lines_across_groups(struct test_ctx *t)
{
	static const struct stk_frame a[] = { { .symbol = "leaf_a", .address = 0x401010, .module = "/bin/w" },
					      { .symbol = "main", .address = 0x401200, .module = "/bin/w" } };
	static const struct stk_frame b[] = { { .symbol = "leaf_b", .address = 0x401020, .module = "/bin/w" },
					      { .symbol = "main", .address = 0x401200, .module = "/bin/w" } };
	const struct stk_stack sa = { .user = a, .n_user = 2 }, sb = { .user = b, .n_user = 2 };
	struct stk_report rep = { .title = "x" };
	struct recording r;
	struct stk_ev_filter all;
	int rc;

	if (!recording_open(&r, &rep, "cpu", false, "1", 3))
		return;
	const struct stk_ev_stack_ref *ra = recording_stack(&r, &sa), *rb = recording_stack(&r, &sb);
	for (int i = 0; i < 10; i++) {
		const struct stk_ev_row row = { .time = T0 + i, .pid = 1, .tid = 1, .comm = "c", .event = "cpu",
						.weight = 1, .unit = "count", .stack = i % 2 ? rb : ra };

		CHECK(t, stk_ev_writer_add(r.w, &row) == 0);
	}
	CHECK(t, recording_close(&r));
	/* groups of 3: a b a | b a b | a b a | b; the second stack of each full group refers to main */
	CHECK(t, frames_with_references(r.fd) == 3);
	stk_ev_filter_all(&all);
	char *out = render(r.fd, &all, STK_FORMAT_FOLDED, &rc);
	CHECK_STR(t, out ? out : "", "c;main;leaf_a 5\nc;main;leaf_b 5\n");
	free(out);
	close(r.fd);
}

static void time_args(struct test_ctx *t)
{
	const int64_t first = 1767268800LL * 1000000000LL; /* 2026-01-01 12:00:00 UTC */
	int64_t ns;
	char err[256];

	CHECK(t, stk_time_arg_parse("2.5", first, &ns, err, sizeof(err)) == 0 && ns == first + 2500000000LL);
	CHECK(t, stk_time_arg_parse("0", first, &ns, err, sizeof(err)) == 0 && ns == first);
	CHECK(t, stk_time_arg_parse("2026-01-01T12:00:05.25Z", first, &ns, err, sizeof(err)) == 0 &&
		 ns == first + 5250000000LL);
	CHECK(t, stk_time_arg_parse("2026-01-01 13:00:05+01:00", first, &ns, err, sizeof(err)) == 0 &&
		 ns == first + 5000000000LL);
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(t, stk_time_arg_parse("12:00:07", first, &ns, err, sizeof(err)) == 0 && ns == first + 7000000000LL);
	/* the seconds may go: stk report /var/lib/stk --from 02:58 --to 03:02 */
	CHECK(t, stk_time_arg_parse("12:03", first, &ns, err, sizeof(err)) == 0 && ns == first + 180000000000LL);
	CHECK(t, stk_time_arg_parse("2026-01-01 12:01Z", first, &ns, err, sizeof(err)) == 0 &&
		 ns == first + 60000000000LL);
	CHECK(t, stk_time_arg_parse("2026-01-01 12:00:01", first, &ns, err, sizeof(err)) == 0 &&
		 ns == first + 1000000000LL);
	unsetenv("TZ");
	tzset();
	static const char *const bad[] = { "", "x", "-1", "1.", "25:00:00", "12:60:00", "2026-13-01 00:00:00",
					   "2026-01-01", "12:00:00+5", "1e3", "2026-01-01T12:00:00Zjunk", "12:",
					   "12:00:", "12:00.5", "12:0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (stk_time_arg_parse(bad[i], first, &ns, err, sizeof(err)) == 0) {
			printf("  time \"%s\" was taken\n", bad[i]);
			t->failures++;
		}
		CHECK(t, err[0] != '\0');
	}
}

static void span_specs(struct test_ctx *t)
{
	struct stk_span_spec s;
	char err[256];

	CHECK(t, stk_span_spec_parse("c:malloc", &s, err, sizeof(err)) == 0 && !s.usdt && s.arg == -1);
	CHECK_STR(t, s.lib, "c");
	CHECK_STR(t, s.label, "malloc");
	CHECK(t, stk_span_spec_parse("/usr/sbin/mariadbd:dispatch_command:arg2", &s, err, sizeof(err)) == 0 &&
		 s.arg == 2);
	CHECK_STR(t, s.lib, "/usr/sbin/mariadbd");
	CHECK_STR(t, s.start, "dispatch_command");
	CHECK(t, stk_span_spec_parse("u:/bin/app:prov:req_start,req_end:arg0", &s, err, sizeof(err)) == 0 && s.usdt &&
		 s.arg == 0);
	CHECK_STR(t, s.provider, "prov");
	CHECK_STR(t, s.start, "req_start");
	CHECK_STR(t, s.end, "req_end");
	static const char *const bad[] = { "malloc", "t:sched:sched_switch", "c:mall*", "c:malloc:arg6", "c:f:argx",
					   "u:/bin/app:prov:req_start", "u:/bin/app:req_start,req_end",
					   "c:f,g", "u:/bin/a:p:s,e*" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (stk_span_spec_parse(bad[i], &s, err, sizeof(err)) == 0) {
			printf("  --span %s was taken\n", bad[i]);
			t->failures++;
		}
	}
}

static void key_index_finds(struct test_ctx *t)
{
	struct stk_key_index ix = { .key_size = sizeof(uint64_t), .stride = sizeof(uint64_t) };
	uint64_t *keys = calloc(5000, sizeof(*keys));

	if (!keys)
		return;
	for (size_t i = 0; i < 5000; i++) {
		keys[i] = i * 7919 + 3;
		CHECK(t, stk_key_index_find(&ix, keys, &keys[i]) == -1);
		CHECK(t, stk_key_index_add(&ix, keys, i + 1) == 0);
	}
	bool all = true;
	for (size_t i = 0; i < 5000; i++)
		all &= stk_key_index_find(&ix, keys, &keys[i]) == (int64_t)i;
	CHECK(t, all);
	uint64_t absent = 2;
	CHECK(t, stk_key_index_find(&ix, keys, &absent) == -1);
	stk_key_index_clear(&ix);
	CHECK(t, stk_key_index_find(&ix, keys, &keys[10]) == -1);
	stk_key_index_free(&ix);
	free(keys);
}

/* Every length up to 40, unaligned, a difference at every position (and none). */
static void bytes_equal_every_length(struct test_ctx *t)
{
	unsigned char a[48], b[48];
	bool right = true;

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = b[i] = (unsigned char)(i * 37 + 1);
	for (size_t off = 0; off < 3; off++)
		for (size_t n = 0; n + off <= 40; n++) {
			right &= stk_bytes_equal(a + off, b + off, n);
			for (size_t at = 0; at < n; at++) {
				b[off + at] ^= 0x80;
				right &= !stk_bytes_equal(a + off, b + off, n);
				b[off + at] ^= 0x80;
			}
		}
	CHECK(t, right);
}

/* Every length up to 100, from and to unaligned places, nothing written past the end. */
static void bytes_copy_every_length(struct test_ctx *t)
{
	unsigned char src[112], dst[112], want[112];
	bool right = true;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 53 + 7);
	for (size_t off = 0; off < 3; off++)
		for (size_t n = 0; n + off + 4 <= 104; n++) {
			memset(dst, 0xee, sizeof(dst));
			memset(want, 0xee, sizeof(want));
			memcpy(want + off + 1, src + off, n);
			stk_bytes_copy(dst + off + 1, src + off, n);
			right &= memcmp(dst, want, sizeof(dst)) == 0;
		}
	CHECK(t, right);
}

const struct test_case eventlog_tests[] = {
	{ "frames_round_trip", frames_round_trip },
	{ "frames_refusals", frames_refusals },
	{ "frames_escape_every_position", frames_escape_every_position },
	{ "report_equals_totals", report_equals_totals },
	{ "report_filters", report_filters },
	{ "totals_cut_intervals", totals_cut_intervals },
	{ "timelines_nest", timelines_nest },
	{ "kinds_apart", kinds_apart },
	{ "many_files_and_differences", many_files_and_differences },
	{ "refuses_other_files", refuses_other_files },
	{ "strings_once_per_group", strings_once_per_group },
	{ "ids_around_the_files_first", ids_around_the_files_first },
	{ "frame_lines_across_groups", frame_lines_across_groups },
	{ "time_args", time_args },
	{ "span_specs", span_specs },
	{ "key_index_finds", key_index_finds },
	{ "bytes_equal_every_length", bytes_equal_every_length },
	{ "bytes_copy_every_length", bytes_copy_every_length },
	{ NULL, NULL },
};
