/*
 * A hash index over an array the caller keeps: entry i's key is the
 * key_size bytes at keys + i * stride (keys compared byte for byte, so
 * padding must be zeroed). Finding an equal key, and adding the entry just
 * appended. Open addressing; entries are numbered from 0.
 */
#ifndef STK_KEY_INDEX_H
#define STK_KEY_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct stk_key_index {
	uint32_t *slots; /* entry + 1, 0: free */
	size_t n_slots;
	size_t key_size, stride;
};

/* The entry (of n) whose key equals key, or -1. */
int64_t stk_key_index_find(const struct stk_key_index *ix, const void *keys, const void *key);
/* Indexes entry n - 1 (its key already in keys), growing the index. 0, or -1 when out of memory. */
int stk_key_index_add(struct stk_key_index *ix, const void *keys, size_t n);
/* Forgets every entry, keeping the memory (the caller starts its array again). */
void stk_key_index_clear(struct stk_key_index *ix);
void stk_key_index_free(struct stk_key_index *ix);

#endif
