/* core/base/key_index.c, the hash table, and core/base/string_pool.c over it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "core/base/key_index.h"
#include "core/base/string_pool.h"

struct rec {
	uint64_t id;
	uint32_t small;
	uint32_t pad; /* zeroed: fixed-size keys compare every byte */
	char other[8];  /* not part of the key */
};

static void fixed_keys_found_after_growth(struct test_ctx *t)
{
	struct stk_key_index ix = { .key_size = 16, .stride = sizeof(struct rec) };
	struct rec *v = calloc(5000, sizeof(*v));
	bool found = true;

	CHECK(t, v != NULL);
	if (!v)
		return;
	CHECK(t, stk_key_index_find(&ix, v, &v[0]) == -1); /* empty */
	for (size_t i = 0; i < 5000; i++) {
		v[i] = (struct rec){ .id = i * 0x100000001ULL, .small = (uint32_t)(i % 7) };
		CHECK(t, stk_key_index_add(&ix, v, i + 1) == 0);
	}
	CHECK(t, ix.n_slots >= 10000 && (ix.n_slots & (ix.n_slots - 1)) == 0); /* at most half full */
	for (size_t i = 0; i < 5000; i++) {
		struct rec k = { .id = i * 0x100000001ULL, .small = (uint32_t)(i % 7) };

		found &= stk_key_index_find(&ix, v, &k) == (int64_t)i;
	}
	CHECK(t, found);
	struct rec absent = { .id = 3 * 0x100000001ULL, .small = 4 };
	CHECK(t, stk_key_index_find(&ix, v, &absent) == -1);
	stk_key_index_clear(&ix); /* memory kept, entries gone */
	CHECK(t, ix.n_slots >= 10000 && stk_key_index_find(&ix, v, &v[1]) == -1);
	stk_key_index_free(&ix);
	CHECK(t, !ix.slots && !ix.n_slots);
	free(v);
}

/* Byte keys the caller compares: strings, all with one hash so every probe walks a long run. */
struct words {
	const char *w[300];
	size_t n;
	bool same_hash;
	struct stk_key_index ix;
};

static uint64_t word_hash(const struct words *ws, const char *s)
{
	return ws->same_hash ? 42 : stk_hash_bytes(s, strlen(s));
}

static uint64_t word_hash_of(const void *ctx, size_t i)
{
	const struct words *ws = ctx;

	return word_hash(ws, ws->w[i]);
}

/* s's entry, added when new. */
static int64_t word_id(struct words *ws, const char *s)
{
	struct stk_key_probe p;

	for (int64_t i = stk_key_index_first(&ws->ix, word_hash(ws, s), &p); i >= 0; i = stk_key_index_next(&ws->ix, &p))
		if (strcmp(ws->w[i], s) == 0)
			return i;
	ws->w[ws->n] = s;
	return stk_key_index_put(&ws->ix, &p, ws->n + 1, word_hash_of, ws) ? -1 : (int64_t)ws->n++;
}

static void probed_keys_and_rebuild(struct test_ctx *t)
{
	static char text[300][8];

	for (int pass = 0; pass < 2; pass++) {
		struct words ws = { .same_hash = pass == 1 };
		bool ok = true;

		for (int i = 0; i < 300; i++) {
			snprintf(text[i], sizeof(text[i]), "w%d", i);
			ok &= word_id(&ws, text[i]) == i;
		}
		for (int i = 0; i < 300; i++)
			ok &= word_id(&ws, text[i]) == i && ws.n == 300;
		CHECK(t, ok);
		/* reordered by the caller (reversed): rebuilt, each word found at its new place */
		for (size_t i = 0; i < ws.n / 2; i++) {
			const char *x = ws.w[i];

			ws.w[i] = ws.w[ws.n - 1 - i];
			ws.w[ws.n - 1 - i] = x;
		}
		CHECK(t, stk_key_index_rebuild(&ws.ix, ws.n, word_hash_of, &ws) == 0);
		for (int i = 0; i < 300; i++)
			ok &= word_id(&ws, text[i]) == 299 - i;
		CHECK(t, ok);
		stk_key_index_free(&ws.ix);
	}
}

static void pool_numbers_strings(struct test_ctx *t)
{
	struct stk_string_pool *p = stk_string_pool_new();
	char name[32];
	bool ok = true;

	CHECK(t, p != NULL);
	if (!p)
		return;
	CHECK(t, stk_string_pool_id(p, "", 0) == 0);
	CHECK(t, stk_string_pool_id(p, "schedule_xyz", 8) == 1); /* "schedule": len bytes only */
	CHECK(t, stk_string_pool_find(p, "schedule", 8) == 1 && stk_string_pool_find(p, "schedul", 7) == STK_STRING_NONE);
	CHECK_STR(t, stk_string_pool_strings(p)[1], "schedule");
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "label %d", i);
		ok &= stk_string_pool_id(p, name, strlen(name)) == (uint32_t)i + 2;
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "label %d", i);
		ok &= stk_string_pool_find(p, name, strlen(name)) == (uint32_t)i + 2 &&
		      strcmp(stk_string_pool_strings(p)[i + 2], name) == 0;
	}
	CHECK(t, ok && stk_string_pool_count(p) == 1002);
	CHECK(t, stk_string_pool_intern(p, "label 7") == stk_string_pool_strings(p)[9]);
	CHECK(t, stk_string_pool_count(p) == 1002);
	stk_string_pool_free(p);
}

const struct test_case key_index_tests[] = {
	{ "fixed_keys_found_after_growth", fixed_keys_found_after_growth },
	{ "probed_keys_and_rebuild", probed_keys_and_rebuild },
	{ "pool_numbers_strings", pool_numbers_strings },
	{ NULL, NULL },
};
