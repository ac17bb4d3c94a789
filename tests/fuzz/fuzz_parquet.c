/*
 * stk's Parquet reader (`stk report FILE.parquet`) on any file. Beyond not
 * crashing, each input must keep memory and time bounded: no allocation
 * larger than a fixed amount plus what the input's own bytes could inflate
 * to (gzip's ~1032:1), whatever sizes the file claims, and a bounded time for
 * the rows read. Seeds: small files of stk's writer (pq_sample seeds).
 */
#include <sanitizer/allocator_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/fuzz/fuzz.h"
#include "tests/parquet/fuzz_schema.h"

#include "core/parquet/parquet_reader.h"

/* Page value arrays (2^17 values of 8 bytes, a few of them) and the like. */
#define FIXED_BYTES (8u << 20)
#define PER_INPUT_BYTE 1100u
/* Rows read per input: beyond them a file is large, not hostile. */
#define MAX_ROWS 100000
#define MAX_SECONDS 2.0

static size_t limit, baseline;
static volatile char sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check_bounds(double start)
{
	size_t now_live = __sanitizer_get_current_allocated_bytes();
	size_t live = now_live > baseline ? now_live - baseline : 0;

	if (fuzz_largest() > limit || live > 4 * limit || now() - start > MAX_SECONDS) {
		fprintf(stderr, "fuzz_parquet: bound broken: largest allocation %zu, live %zu (limit %zu), %.2f s\n",
			fuzz_largest(), live, limit, now() - start);
		abort();
	}
}

static void read_rows(struct stk_pq_reader *r, double start)
{
	size_t len, rows = 0;
	int64_t lo, hi;
	int rc;

	stk_pq_reader_metadata(r, "stk.schema");
	while ((rc = stk_pq_reader_next_group(r)) > 0 && rows < MAX_ROWS) {
		stk_pq_reader_group_range(r, FZ_TIME, &lo, &hi);
		while (rows < MAX_ROWS && (rc = stk_pq_reader_next_row(r)) > 0) {
			rows++;
			for (size_t c = 0; c < FZ_COLUMNS; c++) {
				const char *s = stk_pq_reader_string(r, c, &len);

				/* touch the string's ends: ASan checks they are the reader's */
				if (s && s[len] != '\0')
					abort(); /* strings end in a NUL */
				if (s && len)
					sink ^= s[0];
				stk_pq_reader_int64(r, c);
			}
			if (rows % 1024 == 0)
				check_bounds(start);
		}
		check_bounds(start);
		if (rc < 0)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	double start = now();
	char err[256];
	struct stk_pq_reader *r;

	if (fd < 0)
		return 0;
	fuzz_largest_reset();
	baseline = __sanitizer_get_current_allocated_bytes();
	limit = FIXED_BYTES + PER_INPUT_BYTE * size;
	r = stk_pq_reader_open(fd, fuzz_columns, FZ_COLUMNS, err, sizeof(err));
	if (r) {
		read_rows(r, start);
		stk_pq_reader_close(r);
	} else if (!err[0]) {
		abort(); /* a refusal always says why */
	}
	check_bounds(start);
	close(fd);
	return 0;
}
