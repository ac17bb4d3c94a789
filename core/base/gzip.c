/* gzip through zlib: see gzip.h. */
#include "core/base/gzip.h"

/* windowBits 15 plus 16: gzip framing instead of zlib's */
#define GZIP_WINDOW_BITS 31

int stk_deflater_init(struct stk_deflater *d, int level)
{
	*d = (struct stk_deflater){ 0 };
	if (deflateInit2(&d->z, level, Z_DEFLATED, GZIP_WINDOW_BITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	d->ready = 1;
	return 0;
}

void stk_deflater_end(struct stk_deflater *d)
{
	if (d->ready)
		deflateEnd(&d->z);
	d->ready = 0;
}

int stk_gzip(struct stk_deflater *d, struct stk_buf *out, const uint8_t *in, size_t n)
{
	uLong bound;
	uint8_t *at;

	if (!d->ready || n > UINT32_MAX || deflateReset(&d->z) != Z_OK)
		return -1;
	bound = deflateBound(&d->z, (uLong)n);
	at = stk_buf_reserve(out, bound);
	if (!at)
		return -1;
	d->z.next_in = (Bytef *)in;
	d->z.avail_in = (uInt)n;
	d->z.next_out = at;
	d->z.avail_out = (uInt)bound;
	if (deflate(&d->z, Z_FINISH) != Z_STREAM_END)
		return -1;
	out->len += bound - d->z.avail_out;
	return 0;
}

int stk_inflater_init(struct stk_inflater *f)
{
	*f = (struct stk_inflater){ 0 };
	if (inflateInit2(&f->z, GZIP_WINDOW_BITS) != Z_OK)
		return -1;
	f->ready = 1;
	return 0;
}

void stk_inflater_end(struct stk_inflater *f)
{
	if (f->ready)
		inflateEnd(&f->z);
	f->ready = 0;
}

int stk_gunzip(struct stk_inflater *f, uint8_t *out, size_t out_len, const uint8_t *in, size_t n)
{
	if (!f->ready || n > UINT32_MAX || out_len > UINT32_MAX || inflateReset(&f->z) != Z_OK)
		return -1;
	f->z.next_in = (Bytef *)in;
	f->z.avail_in = (uInt)n;
	f->z.next_out = out;
	f->z.avail_out = (uInt)out_len;
	/* a stream with more to say than out_len stops short of its end: refused too */
	if (inflate(&f->z, Z_FINISH) != Z_STREAM_END || f->z.avail_out != 0 || f->z.avail_in != 0)
		return -1;
	return 0;
}
