/*
 * Times the event log's writer (core/eventlog/event_writer.c: all 13
 * columns, each stack's text and its frames once per row group, each frame line once)
 * on the off-CPU-like events of tests/parquet/event_stream.h, for
 * bench/eventlog.sh, and prints one line:
 *   events N seconds S bytes B maxrss_kb K columns name=bytes,...
 *   eventlog_bench FILE N ring|live
 * ring or live as bench_events (tests/parquet/bench_common.h) says. The
 * frames of each of the stream's stacks are its ';'-separated names as user
 * frames with made-up addresses, a module and a build ID, as a capture has
 * them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/frames_codec.h"
#include "tests/parquet/bench_common.h"
#include "tests/parquet/event_stream.h"

/* The stream's stack i as a stack reference: its text, and frames made from its names. */
static int make_ref(const struct event_stream *s, size_t i, struct stk_ev_stack_ref *ref, struct stk_buf *frames)
{
	struct stk_frame f[256];
	struct stk_stack st = { .user = f };
	char *names = strndup(s->stack_text[i], s->stack_len[i]), *save = NULL;

	if (!names)
		return -1;
	for (char *name = strtok_r(names, ";", &save); name && st.n_user < 256; name = strtok_r(NULL, ";", &save))
		f[st.n_user++] = (struct stk_frame){ .symbol = name, .module = "/usr/sbin/mariadbd", .build_id = "0123abcd",
						     .address = 0x500000 + 0x40 * i + st.n_user, .symbol_offset = 0x40,
						     .map_start = 0x400000, .map_end = 0x2000000, .main_exe = true };
	stk_frames_encode(frames, &st);
	free(names);
	*ref = (struct stk_ev_stack_ref){ .id = (int64_t)i + 1, .text = s->stack_text[i], .text_len = s->stack_len[i],
					  .frames = (const char *)frames->data, .frames_len = frames->len };
	return frames->oom ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct stk_ev_stack_ref refs[EV_STACKS];
	struct bench_events b;
	bool live;
	static struct stk_buf frames[EV_STACKS];
	struct stk_ev_writer *w;
	unsigned long long n;
	char err[256];
	struct event e;
	double t0, t1;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: eventlog_bench FILE N ring|live\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	live = strcmp(argv[3], "live") == 0;
	if (!(f = fopen(argv[1], "w+b")) || bench_events_init(&b, live) < 0) {
		perror("eventlog_bench");
		return 1;
	}
	for (size_t i = 0; i < EV_STACKS; i++)
		if (make_ref(&b.s, i, &refs[i], &frames[i])) {
			fprintf(stderr, "eventlog_bench: out of memory\n");
			return 1;
		}
	if (!(w = stk_ev_writer_new(f, NULL, err, sizeof(err)))) {
		fprintf(stderr, "eventlog_bench: %s\n", err);
		return 1;
	}
	t0 = bench_now();
	for (unsigned long long i = 0; i < n; i++) {
		bench_events_next(&b, i, &e);
		const struct stk_ev_row row = {
			.time = e.time, .pid = (uint32_t)e.pid, .tid = (uint32_t)e.tid, .cpu = (uint32_t)e.cpu,
			.comm = b.s.comm[e.thread / 10], .event = "offcpu", .weight = e.weight, .unit = "nanoseconds",
			.stack = &refs[e.stack], .span = e.span >= 0 ? b.s.span[e.span] : NULL, .state = "SSSD"[i & 3],
		};
		if (stk_ev_writer_add(w, &row))
			break;
	}
	if (stk_ev_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "eventlog_bench: %s\n", err);
		return 1;
	}
	t1 = bench_now();
	bench_report(f, n, t1 - t0, stk_ev_columns, STK_EV_COLS);
	fclose(f);
	for (size_t i = 0; i < EV_STACKS; i++)
		stk_buf_free(&frames[i]);
	bench_events_free(&b);
	return 0;
}
