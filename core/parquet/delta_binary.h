/*
 * DELTA_BINARY_PACKED: differences between consecutive values, per block
 * minus the block's smallest difference, bit-packed per miniblock with the
 * miniblock's own width. Increasing timestamps take a few bits each.
 * Internal to core/parquet/.
 */
#ifndef STK_PQ_DELTA_BINARY_H
#define STK_PQ_DELTA_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"

/* What stk writes: blocks of 128 values in 4 miniblocks of 32. */
#define STK_PQ_DELTA_BLOCK 128
#define STK_PQ_DELTA_MINIBLOCKS 4
/* The largest block the reader accepts (the format sets no bound). */
#define STK_PQ_DELTA_MAX_BLOCK 4096

/*
 * Appends the encoding of n values to out. block_size values per block in
 * `miniblocks` miniblocks; block_size / miniblocks must be a multiple of 8
 * (the format asks for 128 and 32: only tests use other shapes).
 */
void stk_pq_delta_encode(struct stk_buf *out, const int64_t *v, size_t n, unsigned block_size,
			 unsigned miniblocks);

/*
 * Decodes exactly n values from [*p, end) into out and moves *p past them.
 * Differences wrap in 64 bits, as the format says. 0, or -1 when the input
 * is malformed, ends early or holds another number of values.
 */
int stk_pq_delta_decode(int64_t *out, size_t n, const uint8_t **p, const uint8_t *end);

#endif
