/*
 * Times the event log's writer (core/eventlog/event_writer.c: all 13
 * columns, each stack's text by its id and its frames once per row group)
 * on the off-CPU-like events of tests/parquet/event_stream.h, for
 * bench/eventlog.sh, and prints one line:
 *   events N seconds S bytes B maxrss_kb K columns name=bytes,...
 *   eventlog_bench FILE N ring|live
 * "ring" writes from 65,536 events made beforehand (times keep increasing),
 * so the generator's cost stays out of the timing; "live" makes each event
 * as it goes (memory stays the writer's own, for the RSS figure). The
 * frames of each of the stream's stacks are its ';'-separated names as user
 * frames with made-up addresses, a module and a build ID, as a capture has
 * them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/frames_codec.h"
#include "tests/parquet/bench_common.h"
#include "tests/parquet/event_stream.h"

/* The stream's stack i as a stack reference: its text, and frames made from its names. */
static int make_ref(const struct event_stream *s, size_t i, struct stk_ev_stack_ref *ref, struct stk_pq_buf *frames)
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

#define RING 65536

int main(int argc, char **argv)
{
	static struct stk_ev_stack_ref refs[EV_STACKS];
	struct event *ring = NULL;
	bool live;
	static struct stk_pq_buf frames[EV_STACKS];
	struct event_stream s;
	struct stk_ev_writer *w;
	struct rusage ru;
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
	if (!(f = fopen(argv[1], "w+b")) || event_stream_init(&s, 7) < 0 ||
	    (!live && !(ring = malloc(RING * sizeof(*ring))))) {
		perror("eventlog_bench");
		return 1;
	}
	for (size_t i = 0; !live && i < RING; i++)
		event_stream_next(&s, &ring[i]);
	for (size_t i = 0; i < EV_STACKS; i++)
		if (make_ref(&s, i, &refs[i], &frames[i])) {
			fprintf(stderr, "eventlog_bench: out of memory\n");
			return 1;
		}
	if (!(w = stk_ev_writer_new(f, NULL, err, sizeof(err)))) {
		fprintf(stderr, "eventlog_bench: %s\n", err);
		return 1;
	}
	t0 = bench_now();
	for (unsigned long long i = 0; i < n; i++) {
		if (live) {
			event_stream_next(&s, &e);
		} else {
			/* each lap of the ring later than the last */
			e = ring[i % RING];
			e.time += (int64_t)(i / RING) * (ring[RING - 1].time - ring[0].time + 1);
		}
		const struct stk_ev_row row = {
			.time = e.time, .pid = (uint32_t)e.pid, .tid = (uint32_t)e.tid, .cpu = (uint32_t)e.cpu,
			.comm = s.comm[e.thread / 10], .event = "offcpu", .weight = e.weight, .unit = "nanoseconds",
			.stack = &refs[e.stack], .span = e.span >= 0 ? s.span[e.span] : NULL, .state = "SSSD"[i & 3],
		};
		if (stk_ev_writer_add(w, &row))
			break;
	}
	if (stk_ev_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "eventlog_bench: %s\n", err);
		return 1;
	}
	t1 = bench_now();
	getrusage(RUSAGE_SELF, &ru);
	printf("events %llu seconds %.3f bytes %ld maxrss_kb %ld", n, t1 - t0, ftell(f), ru.ru_maxrss);
	bench_column_bytes(f, ftell(f), stk_ev_columns, STK_EV_COLS);
	printf("\n");
	fclose(f);
	free(ring);
	for (size_t i = 0; i < EV_STACKS; i++)
		stk_pq_buf_free(&frames[i]);
	event_stream_free(&s);
	return 0;
}
