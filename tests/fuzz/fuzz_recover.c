/*
 * Making an unfinished event log whole (`stk record -o DIR/` at its start,
 * over files it finds in DIR): core/eventlog/event_recover.c over
 * core/parquet/parquet_salvage.c on any file. Beyond not crashing: what it
 * wrote reads back as an event log, and no allocation is larger than the
 * input could justify (a checkpoint's claimed length is believed only once
 * its CRC over the file's own bytes matches). Seeds: a recorder killed
 * with kill -9, the same with a torn tail and with a byte flipped, a whole
 * file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"

#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_recover.h"

/* Scan buffers and decoded footers: a fixed amount, plus a few times the input. */
#define FIXED_BYTES (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stk_ev_recovered r;
	char err[512];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	fuzz_largest_reset();
	if (stk_ev_recover(fd, &r, err, sizeof(err)) == 0) {
		struct stk_ev_file *f = stk_ev_open(fd, err, sizeof(err));

		/* what it says it made whole must read as one */
		if (!f || stk_ev_meta(f)->events != r.rows) {
			fprintf(stderr, "fuzz_recover: recovered %llu rows, but reading back: %s\n",
				(unsigned long long)r.rows, f ? "another count" : err);
			abort();
		}
		stk_ev_close(f);
	}
	if (fuzz_largest() > FIXED_BYTES + 4 * size) {
		fprintf(stderr, "fuzz_recover: an allocation of %zu bytes for %zu bytes of input\n", fuzz_largest(),
			size);
		abort();
	}
	close(fd);
	return 0;
}
