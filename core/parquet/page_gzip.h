/*
 * The GZIP codec of Parquet pages: zlib's deflate with gzip framing
 * (windowBits 31), one stream per page. Internal to core/parquet/.
 */
#ifndef STK_PQ_PAGE_GZIP_H
#define STK_PQ_PAGE_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "core/base/byte_buf.h"

/* A deflater kept across pages (its 256 KB of state is allocated once). */
struct stk_pq_deflater {
	z_stream z;
	int ready;
};

/* 0, or -1 when zlib cannot start. level: zlib's 1..9. */
int stk_pq_deflater_init(struct stk_pq_deflater *d, int level);
void stk_pq_deflater_end(struct stk_pq_deflater *d);
/* Appends the gzip stream of [in, in + n) to out. 0, or -1 (zlib error or out->oom). */
int stk_pq_gzip(struct stk_pq_deflater *d, struct stk_buf *out, const uint8_t *in, size_t n);

struct stk_pq_inflater {
	z_stream z;
	int ready;
};

int stk_pq_inflater_init(struct stk_pq_inflater *f);
void stk_pq_inflater_end(struct stk_pq_inflater *f);
/*
 * Inflates one gzip stream [in, in + n) into exactly out_len bytes at out.
 * 0, or -1 when the stream is broken, yields more or fewer bytes than
 * out_len, or leaves input over. Never writes past out + out_len.
 */
int stk_pq_gunzip(struct stk_pq_inflater *f, uint8_t *out, size_t out_len, const uint8_t *in, size_t n);

#endif
