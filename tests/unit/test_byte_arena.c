/* core/base/byte_arena.c: bytes from blocks, all given back at once, the blocks reused. */
#include <stdbool.h>

#include "harness.h"
#include "core/base/byte_arena.h"
#include "core/base/string_pool.h"

static void arena_reuses_blocks(struct test_ctx *t)
{
	struct stk_byte_arena a;
	char *first, *second, *big, *again;

	stk_byte_arena_init(&a, 64);
	first = stk_byte_arena_alloc(&a, 40);
	second = stk_byte_arena_alloc(&a, 40); /* no room left in the first block: a second one */
	CHECK(t, first && second && second != first + 40);
	memset(first, 'a', 40);
	memset(second, 'b', 40);
	big = stk_byte_arena_alloc(&a, 1000); /* a block of its own; the second keeps its room */
	CHECK(t, big && stk_byte_arena_alloc(&a, 24) == second + 40);
	memset(big, 'c', 1000);
	CHECK(t, a.bytes >= 2 * 64 + 1000);
	stk_byte_arena_reset(&a);
	/* the usual-size blocks are kept (no new memory), the big one given back */
	CHECK(t, a.bytes >= 2 * 64 && a.bytes < 2 * 64 + 1000);
	again = stk_byte_arena_alloc(&a, 64);
	CHECK(t, again == first || again == second);
	CHECK(t, stk_byte_arena_alloc(&a, 0) != NULL);
	stk_byte_arena_free(&a);
	CHECK(t, a.bytes == 0 && !a.blocks && !a.spare);
}

static void pool_interns_across_blocks(struct test_ctx *t)
{
	struct stk_string_pool *p = stk_string_pool_new();
	char name[32], longer[40000];
	const char *firsts[2000];
	bool same = true;

	CHECK(t, p != NULL);
	if (!p)
		return;
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "/usr/lib/lib%d.so", i);
		firsts[i] = stk_string_pool_intern(p, name);
	}
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CHECK(t, stk_string_pool_intern(p, longer) && strlen(stk_string_pool_intern(p, longer)) == sizeof(longer) - 1);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "/usr/lib/lib%d.so", i);
		same &= firsts[i] && stk_string_pool_intern(p, name) == firsts[i] && strcmp(firsts[i], name) == 0;
	}
	CHECK(t, same);
	CHECK(t, stk_string_pool_bytes(p) > sizeof(longer));
	stk_string_pool_free(p);
}

const struct test_case byte_arena_tests[] = {
	{ "arena_reuses_blocks", arena_reuses_blocks },
	{ "pool_interns_across_blocks", pool_interns_across_blocks },
	{ NULL, NULL },
};
