/* A hash index over a caller's array: see key_index.h. */
#include "core/base/key_index.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/bytes.h"

/* Word at a time (keys are mostly ids and counters), then mixed so the low bits index well. */
static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= sizeof(w); b += sizeof(w), n -= sizeof(w)) {
		memcpy(&w, b, sizeof(w));
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	for (; n; b++, n--)
		h = (h ^ *b) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static const void *key_at(const struct stk_key_index *ix, const void *keys, size_t i)
{
	return (const char *)keys + i * ix->stride;
}

/* The slot holding key, or the free one where it would go. */
static size_t slot_for(const struct stk_key_index *ix, const void *keys, const void *key)
{
	size_t i = (size_t)hash_bytes(key, ix->key_size) & (ix->n_slots - 1);

	while (ix->slots[i] && !stk_bytes_equal(key_at(ix, keys, ix->slots[i] - 1), key, ix->key_size))
		i = (i + 1) & (ix->n_slots - 1);
	return i;
}

int64_t stk_key_index_find(const struct stk_key_index *ix, const void *keys, const void *key)
{
	size_t i;

	if (!ix->n_slots)
		return -1;
	i = slot_for(ix, keys, key);
	return ix->slots[i] ? (int64_t)ix->slots[i] - 1 : -1;
}

int stk_key_index_add(struct stk_key_index *ix, const void *keys, size_t n)
{
	if (n >= UINT32_MAX)
		return -1;
	if (n * 2 > ix->n_slots) {
		size_t size = ix->n_slots ? ix->n_slots * 2 : 1024;
		uint32_t *slots = calloc(size, sizeof(*slots));

		if (!slots)
			return -1;
		free(ix->slots);
		ix->slots = slots;
		ix->n_slots = size;
		for (size_t i = 0; i + 1 < n; i++)
			ix->slots[slot_for(ix, keys, key_at(ix, keys, i))] = (uint32_t)(i + 1);
	}
	ix->slots[slot_for(ix, keys, key_at(ix, keys, n - 1))] = (uint32_t)n;
	return 0;
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
