/* core/base's tools: the floor search, the byte buffer (the hash table: test_key_index.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "core/base/byte_buf.h"
#include "core/base/floor.h"

/* The floor's count by a scan, to hold the search to. */
static size_t floor_by_scan(const uint64_t *v, size_t n, uint64_t x)
{
	size_t at = 0;

	while (at < n && v[at] <= x)
		at++;
	return at;
}

static void floor_finds_last_at_or_below(struct test_ctx *t)
{
	const uint64_t v[] = { 10, 20, 20, 20, 35, 40, 1000 };
	const size_t n = sizeof(v) / sizeof(v[0]);
	bool same = true;
	size_t at;

	for (uint64_t x = 0; x < 1100; x++)
		for (size_t len = 0; len <= n; len++) {
			STK_FLOOR(at, len, i, v[i] <= x);
			same &= at == floor_by_scan(v, len, x);
		}
	CHECK(t, same);
	STK_FLOOR(at, n, i, v[i] <= 9);
	CHECK(t, at == 0); /* below every key: none */
	STK_FLOOR(at, n, i, v[i] <= 20);
	CHECK(t, at == 4 && v[at - 1] == 20); /* the last of equal keys */
	STK_FLOOR(at, n, i, v[i] < 20);
	CHECK(t, at == 1 && v[at] == 20); /* "<": the first at or above */
	STK_FLOOR(at, n, i, v[i] <= UINT64_MAX);
	CHECK(t, at == n);
}

static void buf_text_and_bytes(struct test_ctx *t)
{
	struct stk_buf b = { 0 };
	const uint8_t want[] = { 'a', 'b', 0x2a, 0x78, 0x56, 0x34, 0x12, 0xac, 0x02 };
	const char *digits = "0" "18" "18446744073709551615";
	char *s;

	CHECK_STR(t, stk_buf_str(&b), "");
	stk_buf_puts(&b, "ab");
	CHECK(t, b.len == 2 && b.data[2] == '\0'); /* text leaves a NUL after it */
	stk_buf_byte(&b, 0x2a);
	stk_buf_le32(&b, 0x12345678);
	stk_buf_uleb(&b, 300);
	stk_buf_dec(&b, 0);
	stk_buf_dec(&b, 18);
	stk_buf_dec(&b, UINT64_MAX);
	CHECK(t, !b.oom && b.len == sizeof(want) + strlen(digits) && memcmp(b.data, want, sizeof(want)) == 0 &&
		 memcmp(b.data + sizeof(want), digits, strlen(digits)) == 0);
	stk_buf_reset(&b);
	stk_buf_printf(&b, "%d-%s", 42, "x");
	stk_buf_putc(&b, '!');
	CHECK_STR(t, stk_buf_str(&b), "42-x!");
	s = stk_buf_take(&b);
	CHECK(t, s && strcmp(s, "42-x!") == 0 && !b.data && !b.len);
	free(s);
	/* a failed allocation sticks: later appends do nothing, the text reads "" */
	stk_buf_puts(&b, "kept");
	b.oom = true;
	stk_buf_puts(&b, "lost");
	stk_buf_dec(&b, 7);
	CHECK(t, b.len == 4);
	CHECK_STR(t, stk_buf_str(&b), "");
	stk_buf_free(&b);
	CHECK(t, !b.data && !b.oom);
}

const struct test_case base_tools_tests[] = {
	{ "floor_finds_last_at_or_below", floor_finds_last_at_or_below },
	{ "buf_text_and_bytes", buf_text_and_bytes },
	{ NULL, NULL },
};
