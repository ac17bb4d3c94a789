/*
 * The hash table every part of stk uses: an index over entries the caller
 * keeps in an array (numbered from 0), each found by its key's hash and
 * confirmed by comparing keys. Open addressing with linear probing over
 * slots that hold entry + 1, at most half full, so a miss ends at a free
 * slot within a few steps; growing places the entries again by their
 * hashes, not touching the caller's array. One hash function for every key:
 * stk_hash_bytes over its bytes, stk_hash_u64 for a key that is one number
 * (and to fold a key of several parts into one hash).
 *
 * Two ways in. A fixed-size key laid out in the caller's array (key_size
 * bytes at keys + i * stride, compared byte for byte, so padding must be
 * zeroed): stk_key_index_find and stk_key_index_add do everything. Any
 * other key (strings, byte ranges, a key of several parts): the caller
 * probes with stk_key_index_first and _next, which yield the entries on the
 * hash's run of slots, compares each itself, and on a miss appends its
 * entry and stk_key_index_put's it where the probe ended.
 */
#ifndef STK_KEY_INDEX_H
#define STK_KEY_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* A fast 64-bit hash of bytes: a word at a time in two lanes (not for adversarial use: it only spreads a table). */
uint64_t stk_hash_bytes(const void *p, size_t n);

/* A 64-bit number mixed so that every bit of it moves the low bits (those that pick a slot). */
static inline uint64_t stk_hash_u64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

struct stk_key_index {
	uint32_t *slots; /* entry + 1, 0: free */
	size_t n_slots;  /* 0, or a power of two at least twice the entries */
	/* the layout of fixed-size keys (stk_key_index_find and _add only) */
	size_t key_size, stride;
};

/* Where a probe is: after first or next gave -1, the free slot the key's entry goes to. */
struct stk_key_probe {
	size_t slot;
};

/* The first entry on hash's run of slots, or -1 when there is none. */
static inline int64_t stk_key_index_first(const struct stk_key_index *ix, uint64_t hash, struct stk_key_probe *p)
{
	p->slot = (size_t)hash & (ix->n_slots - 1);
	if (!ix->n_slots)
		return -1; /* empty: put grows it */
	return (int64_t)ix->slots[p->slot] - 1;
}

/* The next entry on the run, or -1 at its end. */
static inline int64_t stk_key_index_next(const struct stk_key_index *ix, struct stk_key_probe *p)
{
	p->slot = (p->slot + 1) & (ix->n_slots - 1);
	return (int64_t)ix->slots[p->slot] - 1;
}

/*
 * Indexes entry n - 1, just appended, whose key the probe p missed. When
 * that would fill more than half the slots the index doubles first, placing
 * every entry (the new one too) by hash_of(ctx, i), entry i's key's hash.
 * 0, or -1 when out of memory (the index unchanged).
 */
int stk_key_index_put(struct stk_key_index *ix, const struct stk_key_probe *p, size_t n,
		      uint64_t (*hash_of)(const void *ctx, size_t i), const void *ctx);
/* Places entries 0 .. n - 1 again, after the caller reordered or dropped some. 0, or -1 (out of memory). */
int stk_key_index_rebuild(struct stk_key_index *ix, size_t n, uint64_t (*hash_of)(const void *ctx, size_t i),
			  const void *ctx);

/* Fixed-size keys: the entry whose key equals key, or -1. */
int64_t stk_key_index_find(const struct stk_key_index *ix, const void *keys, const void *key);
/* Fixed-size keys: indexes entry n - 1 (its key already in keys). 0, or -1 when out of memory. */
int stk_key_index_add(struct stk_key_index *ix, const void *keys, size_t n);

/* Forgets every entry, keeping the memory (the caller starts its array again). */
void stk_key_index_clear(struct stk_key_index *ix);
void stk_key_index_free(struct stk_key_index *ix);

#endif
