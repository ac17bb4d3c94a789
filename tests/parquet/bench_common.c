/* What the Parquet benchmarks share: see bench_common.h. */
#include "tests/parquet/bench_common.h"

#include <stdlib.h>
#include <time.h>

#include "core/parquet/byte_buf.h"
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
