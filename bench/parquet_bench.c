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
#include <sys/resource.h>

#include "core/parquet/parquet_writer.h"
#include "tests/parquet/bench_common.h"
#include "tests/parquet/event_stream.h"

#define RING 65536

int main(int argc, char **argv)
{
	struct stk_pq_writer_opts o = { 0 };
	struct event_stream s;
	struct event *ring = NULL, e;
	struct rusage ru;
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
	if (!(f = fopen(argv[1], "w+b")) || event_stream_init(&s, 7) < 0 ||
	    (!live && !(ring = malloc(RING * sizeof(*ring))))) {
		perror("parquet_bench");
		return 1;
	}
	for (size_t i = 0; !live && i < RING; i++)
		event_stream_next(&s, &ring[i]);
	if (!(w = stk_pq_writer_new(f, stk_event_columns, EV_COLUMNS, &o, err, sizeof(err)))) {
		fprintf(stderr, "parquet_bench: %s\n", err);
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
		if (event_write(w, &s, &e, hashed) < 0)
			break;
	}
	if (stk_pq_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "parquet_bench: %s\n", err);
		return 1;
	}
	t1 = bench_now();
	getrusage(RUSAGE_SELF, &ru);
	printf("events %llu seconds %.3f bytes %ld maxrss_kb %ld", n, t1 - t0, ftell(f), ru.ru_maxrss);
	bench_column_bytes(f, ftell(f), stk_event_columns, EV_COLUMNS);
	printf("\n");
	fclose(f);
	free(ring);
	event_stream_free(&s);
	return 0;
}
