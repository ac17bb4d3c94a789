/*
 * gzip through zlib (deflate with gzip framing, windowBits 31), one whole
 * stream per call: Parquet's GZIP pages and pprof's profile.proto.
 */
#ifndef STK_GZIP_H
#define STK_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "core/base/byte_buf.h"

/* A deflater, kept across streams by a caller that makes many (its 256 KB of state is allocated once). */
struct stk_deflater {
	z_stream z;
	int ready;
};

/* 0, or -1 when zlib cannot start. level: zlib's 1..9, or Z_DEFAULT_COMPRESSION. */
int stk_deflater_init(struct stk_deflater *d, int level);
void stk_deflater_end(struct stk_deflater *d);
/* Appends the gzip stream of [in, in + n) to out. 0, or -1 (zlib error or out->oom). */
int stk_gzip(struct stk_deflater *d, struct stk_buf *out, const uint8_t *in, size_t n);

struct stk_inflater {
	z_stream z;
	int ready;
};

int stk_inflater_init(struct stk_inflater *f);
void stk_inflater_end(struct stk_inflater *f);
/*
 * Inflates one gzip stream [in, in + n) into exactly out_len bytes at out.
 * 0, or -1 when the stream is broken, yields more or fewer bytes than
 * out_len, or leaves input over. Never writes past out + out_len.
 */
int stk_gunzip(struct stk_inflater *f, uint8_t *out, size_t out_len, const uint8_t *in, size_t n);

#endif
