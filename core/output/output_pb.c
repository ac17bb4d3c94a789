/* A minimal protobuf writer (varints and length-delimited fields) and gzip,
 * enough for profile.proto without a protobuf library. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/output/output_internal.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void key(struct stk_buf *p, uint32_t field, unsigned wire)
{
	stk_buf_uleb(p, (uint64_t)field << 3 | wire);
}

void stk_pb_uint(struct stk_buf *p, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	key(p, field, WIRE_VARINT);
	stk_buf_uleb(p, v);
}

void stk_pb_int(struct stk_buf *p, uint32_t field, int64_t v)
{
	/* int64 (not sint64): negative values are their 64-bit two's complement */
	stk_pb_uint(p, field, (uint64_t)v);
}

void stk_pb_bytes(struct stk_buf *p, uint32_t field, const void *data, size_t n)
{
	key(p, field, WIRE_LEN);
	stk_buf_uleb(p, n);
	stk_buf_put(p, data, n);
}

void stk_pb_string(struct stk_buf *p, uint32_t field, const char *s)
{
	stk_pb_bytes(p, field, s, strlen(s));
}

void stk_pb_sub(struct stk_buf *p, uint32_t field, const struct stk_buf *sub)
{
	if (sub->oom)
		p->oom = true;
	stk_pb_bytes(p, field, sub->data, sub->len);
}

int stk_gzip_write(FILE *out, const uint8_t *data, size_t n)
{
	unsigned char chunk[16384];
	z_stream zs = { 0 };
	int ret = 0, zret;

	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	zs.next_in = (unsigned char *)(uintptr_t)data;
	zs.avail_in = (uInt)n;
	if ((size_t)zs.avail_in != n) { /* > 4 GiB: never for a profile, but do not truncate */
		deflateEnd(&zs);
		return -1;
	}
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zret = deflate(&zs, Z_FINISH);
		if (zret == Z_STREAM_ERROR || stk_write_all(out, chunk, sizeof(chunk) - zs.avail_out)) {
			ret = -1;
			break;
		}
	} while (zret != Z_STREAM_END);
	deflateEnd(&zs);
	return ret;
}
