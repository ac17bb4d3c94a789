/* What the Parquet benchmarks share: see bench_common.h. */
#include "tests/parquet/bench_common.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "core/parquet/numbers.h"
#include "core/parquet/footer.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_column_bytes(FILE *f, long size, const struct stk_pq_column *cols, size_t n)
{
	uint8_t tail[8], *footer;
	struct stk_pq_footer m;
	const char *why;
	uint32_t len;

	if (fseek(f, size - 8, SEEK_SET) != 0 || fread(tail, 1, 8, f) != 8)
		return;
	len = stk_pq_get_le32(tail);
	footer = malloc(len);
	if (footer && fseek(f, size - 8 - (long)len, SEEK_SET) == 0 && fread(footer, 1, len, f) == len &&
	    stk_pq_footer_decode(footer, len, &m, &why) == 0) {
		printf(" columns ");
		for (size_t c = 0; c < n; c++) {
			long long sum = 0;

			for (size_t g = 0; g < m.n_groups; g++)
				sum += m.groups[g].chunks[c].total_compressed;
			printf("%s%s=%lld", c ? "," : "", cols[c].name, sum);
		}
		printf(" footer=%u groups=%zu", len, m.n_groups);
		stk_pq_footer_free(&m);
	}
	free(footer);
}

#define RING 65536

int bench_events_init(struct bench_events *b, bool live)
{
	*b = (struct bench_events){ .live = live };
	if (event_stream_init(&b->s, 7) < 0 || (!live && !(b->ring = malloc(RING * sizeof(*b->ring)))))
		return -1;
	for (size_t i = 0; !live && i < RING; i++)
		event_stream_next(&b->s, &b->ring[i]);
	return 0;
}

void bench_events_next(struct bench_events *b, unsigned long long i, struct event *e)
{
	if (b->live) {
		event_stream_next(&b->s, e);
		return;
	}
	/* each lap of the ring later than the last */
	*e = b->ring[i % RING];
	e->time += (int64_t)(i / RING) * (b->ring[RING - 1].time - b->ring[0].time + 1);
}

void bench_events_free(struct bench_events *b)
{
	free(b->ring);
	event_stream_free(&b->s);
}

void bench_report(FILE *f, unsigned long long n, double seconds, const struct stk_pq_column *cols, size_t n_cols)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("events %llu seconds %.3f bytes %ld maxrss_kb %ld", n, seconds, ftell(f), ru.ru_maxrss);
	bench_column_bytes(f, ftell(f), cols, n_cols);
	printf("\n");
}
