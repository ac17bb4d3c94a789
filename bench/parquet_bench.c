/*
 * Times stk's Parquet writer on off-CPU-like events (tests/parquet/event_stream.h)
 * for bench/parquet.sh, and prints one line:
 *   events N seconds S bytes B maxrss_kb K columns name=bytes,...
 *   parquet_bench FILE N keyed|hashed LEVEL ring|live
 * "ring" writes from 65,536 events made beforehand (times keep increasing),
 * so the generator's cost stays out of the timing; "live" makes each event
 * as it goes (memory stays the writer's own, for the RSS figure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parquet/parquet_writer.h"
#include "tests/parquet/bench_common.h"
#include "tests/parquet/event_stream.h"

int main(int argc, char **argv)
{
	struct stk_pq_writer_opts o = { 0 };
	struct bench_events b;
	struct event e;
	char err[256];
	unsigned long long n;
	bool hashed, live;
	struct stk_pq_writer *w;
	double t0, t1;
	FILE *f;

	if (argc != 6) {
		fprintf(stderr, "usage: parquet_bench FILE N keyed|hashed LEVEL ring|live\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	hashed = strcmp(argv[3], "hashed") == 0;
	o.gzip_level = atoi(argv[4]);
	live = strcmp(argv[5], "live") == 0;
	if (!(f = fopen(argv[1], "w+b")) || bench_events_init(&b, live) < 0) {
		perror("parquet_bench");
		return 1;
	}
	if (!(w = stk_pq_writer_new(f, stk_event_columns, EV_COLUMNS, &o, err, sizeof(err)))) {
		fprintf(stderr, "parquet_bench: %s\n", err);
		return 1;
	}
	t0 = bench_now();
	for (unsigned long long i = 0; i < n; i++) {
		bench_events_next(&b, i, &e);
		if (event_write(w, &b.s, &e, hashed) < 0)
			break;
	}
	if (stk_pq_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "parquet_bench: %s\n", err);
		return 1;
	}
	t1 = bench_now();
	bench_report(f, n, t1 - t0, stk_event_columns, EV_COLUMNS);
	fclose(f);
	bench_events_free(&b);
	return 0;
}
