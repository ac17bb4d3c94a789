/*
 * Parquet's encodings against byte sequences worked out by hand from the
 * format's own worked examples (bit-packing of 0..7 in 3 bits, the two
 * DELTA_BINARY_PACKED examples with their 8-value blocks) and from Thrift's
 * compact protocol rules, both ways.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/base/gzip.h"
#include "core/parquet/bitpack.h"
#include "core/parquet/delta_binary.h"
#include "core/parquet/footer.h"
#include "core/parquet/format.h"
#include "core/parquet/hybrid_rle.h"
#include "core/parquet/numbers.h"
#include "core/parquet/thrift_compact.h"

static int same_bytes(const struct stk_buf *b, const uint8_t *want, size_t n)
{
	return !b->oom && b->len == n && memcmp(b->data, want, n) == 0;
}

static void bit_packing_spec_example(struct test_ctx *t)
{
	/* "dec value 0..7, bit width 3": 10001000 11000110 11111010 */
	const uint64_t v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	const uint8_t want[] = { 0x88, 0xc6, 0xfa };
	uint8_t out[3];
	uint64_t back[8];

	stk_pq_pack(out, v, 8, 3);
	CHECK(t, memcmp(out, want, 3) == 0);
	stk_pq_unpack(back, out, 8, 3);
	CHECK(t, memcmp(back, v, sizeof(v)) == 0);

	/* 64-bit values straddle the accumulator */
	const uint64_t wide[3] = { UINT64_MAX, 1, 0x8000000000000001ULL };
	uint8_t packed[24];
	uint64_t wide_back[3];

	stk_pq_pack(packed, wide, 3, 64);
	stk_pq_unpack(wide_back, packed, 3, 64);
	CHECK(t, memcmp(wide, wide_back, sizeof(wide)) == 0);
	stk_pq_pack(packed, wide + 1, 2, 63);
	stk_pq_unpack(wide_back, packed, 2, 63);
	CHECK(t, wide_back[0] == 1 && wide_back[1] == (0x8000000000000001ULL & (UINT64_MAX >> 1)));
}

static void hybrid_rle_bytes(struct test_ctx *t)
{
	const uint32_t seq[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	/* one bit-packed group: header (1 << 1 | 1), then the spec's three bytes */
	const uint8_t packed[] = { 0x03, 0x88, 0xc6, 0xfa };
	/* 100 fives in 3 bits: header 200 as ULEB128, value in one byte */
	const uint8_t run[] = { 0xc8, 0x01, 0x05 };
	uint32_t fives[100], back[100];
	struct stk_buf b = { 0 };

	stk_pq_rle_encode(&b, seq, 8, 3);
	CHECK(t, same_bytes(&b, packed, sizeof(packed)));
	CHECK(t, stk_pq_rle_decode(back, 8, b.data, b.len, 3) == 0 && memcmp(back, seq, sizeof(seq)) == 0);
	b.len = 0;
	for (int i = 0; i < 100; i++)
		fives[i] = 5;
	stk_pq_rle_encode(&b, fives, 100, 3);
	CHECK(t, same_bytes(&b, run, sizeof(run)));
	CHECK(t, stk_pq_rle_decode(back, 100, b.data, b.len, 3) == 0 && back[99] == 5);
	/* width 0 (a dictionary of one value): runs with no value bytes */
	b.len = 0;
	memset(fives, 0, sizeof(fives));
	stk_pq_rle_encode(&b, fives, 100, 0);
	CHECK(t, b.len == 2 && b.data[0] == 0xc8 && b.data[1] == 0x01);
	/* refused: a value wider than the width, a run past the end, a zero-length run */
	const uint8_t wide[] = { 0x02, 0x09 }, short_pack[] = { 0x03, 0x88 }, empty_run[] = { 0x00, 0x01 };
	CHECK(t, stk_pq_rle_decode(back, 1, wide, sizeof(wide), 3) < 0);
	CHECK(t, stk_pq_rle_decode(back, 8, short_pack, sizeof(short_pack), 3) < 0);
	CHECK(t, stk_pq_rle_decode(back, 1, empty_run, sizeof(empty_run), 1) < 0);
	CHECK(t, stk_pq_rle_decode(back, 1, wide, sizeof(wide), 33) < 0);
	stk_buf_free(&b);
}

static void hybrid_rle_mixed_runs(struct test_ctx *t)
{
	uint32_t v[1000], back[1000];
	struct stk_buf b = { 0 };

	/* short runs, long runs and a ragged end, in the widths levels and indices use */
	for (int i = 0; i < 1000; i++)
		v[i] = i < 300 ? (uint32_t)(i % 3) : i < 650 ? 1u : (uint32_t)(i * 7 % 13);
	for (unsigned width = 4; width <= 32; width += 28) {
		b.len = 0;
		for (size_t n = 0; n <= 1000; n += n < 20 ? 1 : 97) {
			b.len = 0;
			stk_pq_rle_encode(&b, v, n, width);
			CHECK(t, stk_pq_rle_decode(back, n, b.data, b.len, width) == 0 && memcmp(back, v, n * 4) == 0);
		}
	}
	stk_buf_free(&b);
}

static void delta_spec_examples(struct test_ctx *t)
{
	/* Example 1: 1..5 -> header 8, 1, 5, zigzag(1); block: zigzag(1), width 0 */
	const int64_t ex1[] = { 1, 2, 3, 4, 5 };
	const uint8_t want1[] = { 0x08, 0x01, 0x05, 0x02, 0x02, 0x00 };
	/* Example 2: 7 5 3 1 2 3 4 5 -> min delta -2, width 2, 0 0 0 3 3 3 3 (0) packed */
	const int64_t ex2[] = { 7, 5, 3, 1, 2, 3, 4, 5 };
	const uint8_t want2[] = { 0x08, 0x01, 0x08, 0x0e, 0x03, 0x02, 0xc0, 0x3f };
	struct stk_buf b = { 0 };
	int64_t back[8];
	const uint8_t *p;

	stk_pq_delta_encode(&b, ex1, 5, 8, 1);
	CHECK(t, same_bytes(&b, want1, sizeof(want1)));
	p = want1;
	CHECK(t, stk_pq_delta_decode(back, 5, &p, want1 + sizeof(want1)) == 0 && memcmp(back, ex1, sizeof(ex1)) == 0);
	CHECK(t, p == want1 + sizeof(want1));
	b.len = 0;
	stk_pq_delta_encode(&b, ex2, 8, 8, 1);
	CHECK(t, same_bytes(&b, want2, sizeof(want2)));
	p = want2;
	CHECK(t, stk_pq_delta_decode(back, 8, &p, want2 + sizeof(want2)) == 0 && memcmp(back, ex2, sizeof(ex2)) == 0);
	/* the count must be the one expected; the data must be there */
	p = want2;
	CHECK(t, stk_pq_delta_decode(back, 7, &p, want2 + sizeof(want2)) < 0);
	p = want2;
	CHECK(t, stk_pq_delta_decode(back, 8, &p, want2 + sizeof(want2) - 1) < 0);
	stk_buf_free(&b);
}

static void delta_wraps_and_blocks(struct test_ctx *t)
{
	enum { N = 1000 };
	int64_t *v = malloc(N * sizeof(*v)), *back = malloc(N * sizeof(*back));
	struct stk_buf b = { 0 };
	const uint8_t *p;

	if (!v || !back)
		goto out;
	/* increasing times, then extremes whose differences overflow int64 */
	for (int i = 0; i < N; i++)
		v[i] = 1767225600000000000LL + (int64_t)i * 100003 + (i % 7) * 13;
	v[500] = INT64_MIN;
	v[501] = INT64_MAX;
	v[502] = 0;
	for (size_t n = 0; n <= N; n += n < 140 ? 1 : 173) {
		b.len = 0;
		stk_pq_delta_encode(&b, v, n, STK_PQ_DELTA_BLOCK, STK_PQ_DELTA_MINIBLOCKS);
		p = b.data;
		CHECK(t, stk_pq_delta_decode(back, n, &p, b.data + b.len) == 0 && memcmp(back, v, n * sizeof(*v)) == 0);
		CHECK(t, p == b.data + b.len);
	}
out:
	free(v);
	free(back);
	stk_buf_free(&b);
}

static void thrift_compact_bytes(struct test_ctx *t)
{
	/*
	 * i32 field 1 = 2: (1 << 4 | 5), zigzag 4; binary field 4 "ab": delta 3, type 8;
	 * bool field 5 true: (1 << 4 | 1); struct field 10: delta 5, type 12, holding
	 * i64 field 1 = -1 (zigzag 1) and STOP; list field 11 of two i32 (1, -1): header
	 * (2 << 4 | 5), zigzag 2 and 1; i32 field 40 = 0: long form (type, zigzag 80);
	 * STOP.
	 */
	const uint8_t want[] = { 0x15, 0x04, 0x38, 0x02, 'a', 'b', 0x11, 0x5c, 0x16, 0x01, 0x00,
				 0x19, 0x25, 0x02, 0x01, 0x05, 0x50, 0x00, 0x00 };
	struct stk_buf b = { 0 };
	struct stk_thrift_writer w;
	struct stk_thrift_reader r = { .p = want, .end = want + sizeof(want) };
	int16_t last = 0, id;
	uint8_t type;
	int32_t i32;
	int64_t i64;

	stk_thrift_writer_init(&w, &b);
	stk_thrift_field_i32(&w, 1, 2);
	stk_thrift_field_binary(&w, 4, "ab", 2);
	stk_thrift_field_bool(&w, 5, true);
	stk_thrift_field_struct(&w, 10);
	stk_thrift_field_i64(&w, 1, -1);
	stk_thrift_struct_end(&w);
	stk_thrift_field_list(&w, 11, STK_THRIFT_I32, 2);
	stk_thrift_elem_i32(&w, 1);
	stk_thrift_elem_i32(&w, -1);
	stk_thrift_field_i32(&w, 40, 0);
	stk_thrift_struct_end(&w);
	CHECK(t, same_bytes(&b, want, sizeof(want)));

	/* read back: the first field by hand, the rest skipped as unknown */
	CHECK(t, stk_thrift_next_field(&r, &last, &id, &type) == 1 && id == 1 && type == STK_THRIFT_I32);
	CHECK(t, stk_thrift_read_i32(&r, &i32) == 0 && i32 == 2);
	while (stk_thrift_next_field(&r, &last, &id, &type) == 1)
		CHECK(t, stk_thrift_skip(&r, type) == 0);
	CHECK(t, !r.err && last == 40 && r.p == want + sizeof(want));
	(void)i64;
	stk_buf_free(&b);
}

static void thrift_reader_refusals(struct test_ctx *t)
{
	uint8_t deep[40], list[] = { 0x19, 0xf5, 0xe8, 0x07, 0x01 }, bin[] = { 0x18, 0x10, 'a' };
	int16_t last = 0, id;
	uint8_t type;

	/* 39 nested structs: past the depth bound */
	for (size_t i = 0; i < sizeof(deep) - 1; i++)
		deep[i] = 0x1c;
	deep[sizeof(deep) - 1] = 0;
	struct stk_thrift_reader r = { .p = deep, .end = deep + sizeof(deep) };
	CHECK(t, stk_thrift_next_field(&r, &last, &id, &type) == 1 && stk_thrift_skip(&r, type) < 0 && r.err);
	/* a list of 1000 i32 in one byte */
	r = (struct stk_thrift_reader){ .p = list, .end = list + sizeof(list) };
	last = 0;
	CHECK(t, stk_thrift_next_field(&r, &last, &id, &type) == 1 && stk_thrift_skip(&r, type) < 0);
	/* a binary of 16 bytes holding one */
	r = (struct stk_thrift_reader){ .p = bin, .end = bin + sizeof(bin) };
	last = 0;
	CHECK(t, stk_thrift_next_field(&r, &last, &id, &type) == 1 && stk_thrift_skip(&r, type) < 0);
	/* a varint of eleven bytes */
	const uint8_t *p = (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
	uint64_t v;
	CHECK(t, stk_pq_get_uleb(&p, p + 11, &v) < 0);
}

static void page_header_round_trip(struct test_ctx *t)
{
	struct stk_pq_page_header h = { .type = STK_PQ_PAGE_DATA, .uncompressed_size = 1234, .compressed_size = 99,
					.num_values = 16384, .encoding = STK_PQ_ENC_RLE_DICTIONARY }, back;
	struct stk_buf b = { 0 };
	const char *err = NULL;
	size_t used = 0;

	stk_pq_page_header_encode(&b, &h);
	stk_buf_put(&b, "tail", 4);
	CHECK(t, stk_pq_page_header_decode(b.data, b.len, &back, &used, &err) == 0);
	CHECK(t, used == b.len - 4 && back.type == h.type && back.num_values == 16384 &&
		 back.uncompressed_size == 1234 && back.compressed_size == 99 &&
		 back.encoding == STK_PQ_ENC_RLE_DICTIONARY && back.def_encoding == STK_PQ_ENC_RLE);
	CHECK(t, stk_pq_page_header_decode(b.data, used - 1, &back, &used, &err) < 0 && err);
	stk_buf_free(&b);
}

static void gzip_bounded(struct test_ctx *t)
{
	struct stk_deflater d;
	struct stk_inflater z;
	struct stk_buf b = { 0 };
	uint8_t in[5000], out[5001];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i % 17);
	CHECK(t, stk_deflater_init(&d, 6) == 0 && stk_inflater_init(&z) == 0);
	CHECK(t, stk_gzip(&d, &b, in, sizeof(in)) == 0 && b.len > 18 && b.data[0] == 0x1f && b.data[1] == 0x8b);
	CHECK(t, stk_gunzip(&z, out, sizeof(in), b.data, b.len) == 0 && memcmp(in, out, sizeof(in)) == 0);
	/* more or fewer bytes than declared, trailing bytes, a cut stream: refused */
	CHECK(t, stk_gunzip(&z, out, sizeof(in) - 1, b.data, b.len) < 0);
	CHECK(t, stk_gunzip(&z, out, sizeof(in) + 1, b.data, b.len) < 0);
	CHECK(t, stk_gunzip(&z, out, sizeof(in), b.data, b.len - 1) < 0);
	stk_buf_byte(&b, 0);
	CHECK(t, stk_gunzip(&z, out, sizeof(in), b.data, b.len) < 0);
	stk_deflater_end(&d);
	stk_inflater_end(&z);
	stk_buf_free(&b);
}

const struct test_case parquet_encodings_tests[] = {
	{ "parquet_bit_packing_spec_example", bit_packing_spec_example },
	{ "parquet_hybrid_rle_bytes", hybrid_rle_bytes },
	{ "parquet_hybrid_rle_mixed_runs", hybrid_rle_mixed_runs },
	{ "parquet_delta_spec_examples", delta_spec_examples },
	{ "parquet_delta_wraps_and_blocks", delta_wraps_and_blocks },
	{ "parquet_thrift_compact_bytes", thrift_compact_bytes },
	{ "parquet_thrift_reader_refusals", thrift_reader_refusals },
	{ "parquet_page_header_round_trip", page_header_round_trip },
	{ "parquet_gzip_bounded", gzip_bounded },
	{ NULL, NULL },
};
