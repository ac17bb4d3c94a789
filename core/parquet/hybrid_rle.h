/*
 * Parquet's RLE / bit-packed hybrid: runs of one value as (count, value),
 * everything else bit-packed in groups of 8. It carries definition levels
 * and dictionary indices. Internal to core/parquet/.
 */
#ifndef STK_PQ_HYBRID_RLE_H
#define STK_PQ_HYBRID_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"

/*
 * Appends n values of width bits (0..32) to out, without a length prefix.
 * A run of 8 or more equal values becomes an RLE run; the rest is
 * bit-packed, the last group padded with zeros.
 */
void stk_pq_rle_encode(struct stk_buf *out, const uint32_t *v, size_t n, unsigned width);

/*
 * Decodes exactly n values of width bits (0..32) from [in, in + len) into
 * out. Bytes left over are allowed (the last group's padding, or a length
 * prefix that rounded up). 0, or -1 when the input ends first, a run is
 * malformed, or a value is wider than width.
 */
int stk_pq_rle_decode(uint32_t *out, size_t n, const uint8_t *in, size_t len, unsigned width);

#endif
