/*
 * What `stk report` parses beyond the Parquet reader (fuzz_parquet's): an
 * event log's footer metadata and rows, each stack's frames text, and
 * everything built from them (totals, timelines, every format's writer).
 * An input starting with 'F' is frames text alone (core/eventlog/
 * frames_codec.h), reached here without a Parquet file around it; 'L' is a
 * row group's frames values (NUL between them) expanded through its line
 * table (core/eventlog/frame_lines.h) and decoded; any other
 * input is a file, rendered as folded, pprof and trace. Beyond not crashing,
 * a rendering must end within a bounded time. Seeds: small recordings of
 * profile and offcputime (with spans) and frames texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/fuzz/fuzz.h"

#include "core/eventlog/event_render.h"
#include "core/eventlog/frame_lines.h"
#include "core/eventlog/frames_codec.h"

#define MAX_SECONDS 3.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void frames(const uint8_t *data, size_t size)
{
	struct stk_stack st = { 0 };
	struct stk_decoded_frames *owner;
	char err[256];
	volatile size_t sink = 0;

	if (stk_frames_decode((const char *)data, size, &st, &owner, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < st.n_user; i++)
			sink += st.user[i].symbol ? st.user[i].symbol[0] : 0;
		stk_frames_free(owner);
	}
	(void)sink;
}

static void group(const uint8_t *data, size_t size)
{
	struct stk_frame_lines_table t;
	struct stk_buf out = { 0 };
	char err[256];

	stk_frame_lines_table_init(&t, 1 << 20);
	for (const uint8_t *p = data, *end = data + size; p < end;) {
		const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
		size_t n = (size_t)((nul ? nul : end) - p);

		out.len = 0;
		if (stk_frame_lines_take(&t, (const char *)p, n, &out, err, sizeof(err)))
			break;
		frames(out.data, out.len);
		p += n + 1;
	}
	stk_buf_free(&out);
	stk_frame_lines_table_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum stk_format formats[] = { STK_FORMAT_FOLDED, STK_FORMAT_PPROF, STK_FORMAT_TRACE };
	struct stk_ev_filter all;
	char err[512];
	FILE *null;
	int fd;

	if (size && data[0] == 'F') {
		frames(data + 1, size - 1);
		return 0;
	}
	if (size && data[0] == 'L') {
		group(data + 1, size - 1);
		return 0;
	}
	if ((fd = fuzz_memfd(data, size)) < 0 || !(null = fopen("/dev/null", "w"))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	stk_ev_filter_all(&all);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		double start = now();

		if (stk_ev_render(fd, &all, formats[i], null, err, sizeof(err)) == STK_EV_RENDER_BAD_INPUT && !err[0]) {
			fprintf(stderr, "fuzz_eventlog: refused without a reason\n");
			abort();
		}
		if (now() - start > MAX_SECONDS) {
			fprintf(stderr, "fuzz_eventlog: rendering took %.2f s\n", now() - start);
			abort();
		}
	}
	fclose(null);
	close(fd);
	return 0;
}
