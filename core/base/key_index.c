/* The hash table: see key_index.h. */
#include "core/base/key_index.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/bytes.h"

/* Slots of an index's first allocation. */
#define FIRST_SLOTS 64

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

uint64_t stk_hash_bytes(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0xc2b2ae3d27d4eb4fULL, tail[2] = { 0, 0 };
	size_t i = 0;

	/* two independent lanes, so a multiply's latency hides behind the other */
	for (; i + 16 <= n; i += 16) {
		a = (a ^ load64(p + i)) * 0x9fb21c651e98df25ULL;
		b = (b ^ load64(p + i + 8)) * 0xff51afd7ed558ccdULL;
		a ^= a >> 29;
		b ^= b >> 31;
	}
	/* under 16; the address in integers: p may be NULL when n is 0 (no bytes are read then) */
	stk_bytes_copy_short(tail, (const void *)((uintptr_t)data + i), n - i);
	a = (a ^ tail[0]) * 0x9fb21c651e98df25ULL;
	b = (b ^ tail[1]) * 0xff51afd7ed558ccdULL;
	return stk_hash_u64(a ^ (b << 23 | b >> 41));
}

/* Entries 0 .. n - 1 into slots (all free, n_slots of them), each by its hash. */
static void place_all(uint32_t *slots, size_t n_slots, size_t n, uint64_t (*hash_of)(const void *ctx, size_t i),
		      const void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)hash_of(ctx, i) & (n_slots - 1);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = (uint32_t)(i + 1);
	}
}

/* Places n entries in slots at least twice as many, new ones when the index has too few. 0, or -1. */
static int place_in(struct stk_key_index *ix, size_t n, uint64_t (*hash_of)(const void *ctx, size_t i),
		    const void *ctx)
{
	size_t size = ix->n_slots ? ix->n_slots : FIRST_SLOTS;
	uint32_t *slots;

	if (n >= UINT32_MAX)
		return -1;
	while (n * 2 > size)
		size *= 2;
	if (size == ix->n_slots) {
		memset(ix->slots, 0, size * sizeof(*ix->slots));
		place_all(ix->slots, size, n, hash_of, ctx);
		return 0;
	}
	if (!(slots = calloc(size, sizeof(*slots))))
		return -1;
	place_all(slots, size, n, hash_of, ctx);
	free(ix->slots);
	ix->slots = slots;
	ix->n_slots = size;
	return 0;
}

int stk_key_index_put(struct stk_key_index *ix, const struct stk_key_probe *p, size_t n,
		      uint64_t (*hash_of)(const void *ctx, size_t i), const void *ctx)
{
	if (n >= UINT32_MAX)
		return -1;
	if (n * 2 > ix->n_slots)
		return place_in(ix, n, hash_of, ctx);
	ix->slots[p->slot] = (uint32_t)n;
	return 0;
}

int stk_key_index_rebuild(struct stk_key_index *ix, size_t n, uint64_t (*hash_of)(const void *ctx, size_t i),
			  const void *ctx)
{
	if (!n) {
		stk_key_index_clear(ix);
		return 0;
	}
	return place_in(ix, n, hash_of, ctx);
}

/* A fixed-size key's layout: what hashes entry i's key. */
struct fixed_keys {
	const struct stk_key_index *ix;
	const void *keys;
};

static const void *key_at(const struct stk_key_index *ix, const void *keys, size_t i)
{
	return (const char *)keys + i * ix->stride;
}

static uint64_t fixed_hash(const void *ctx, size_t i)
{
	const struct fixed_keys *f = ctx;

	return stk_hash_bytes(key_at(f->ix, f->keys, i), f->ix->key_size);
}

int64_t stk_key_index_find(const struct stk_key_index *ix, const void *keys, const void *key)
{
	struct stk_key_probe p;

	for (int64_t i = stk_key_index_first(ix, stk_hash_bytes(key, ix->key_size), &p); i >= 0;
	     i = stk_key_index_next(ix, &p))
		if (stk_bytes_equal(key_at(ix, keys, (size_t)i), key, ix->key_size))
			return i;
	return -1;
}

int stk_key_index_add(struct stk_key_index *ix, const void *keys, size_t n)
{
	const void *key = key_at(ix, keys, n - 1);
	const struct fixed_keys f = { ix, keys };
	struct stk_key_probe p;

	for (int64_t i = stk_key_index_first(ix, stk_hash_bytes(key, ix->key_size), &p); i >= 0;
	     i = stk_key_index_next(ix, &p))
		if (stk_bytes_equal(key_at(ix, keys, (size_t)i), key, ix->key_size)) {
			ix->slots[p.slot] = (uint32_t)n; /* an equal key: the new entry stands for it */
			return 0;
		}
	return stk_key_index_put(ix, &p, n, fixed_hash, &f);
}

void stk_key_index_clear(struct stk_key_index *ix)
{
	if (ix->n_slots)
		memset(ix->slots, 0, ix->n_slots * sizeof(*ix->slots));
}

void stk_key_index_free(struct stk_key_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->n_slots = 0;
}
