/*
 * One column's dictionary for the row group being written: each distinct
 * value once, in the PLAIN layout of a dictionary page (a 4-byte length then
 * the bytes for strings, 4 bytes for INT32), and its index for the data
 * pages. A value is found by a 64-bit key: one the caller vouches for (a
 * stack id: no hashing, no comparing) or a hash of the bytes, compared in
 * full. Used by the column writer, and by the event log to find frame lines
 * it already stored (core/eventlog/frame_lines.c).
 */
#ifndef STK_PQ_DICTIONARY_H
#define STK_PQ_DICTIONARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"
#include "core/base/key_index.h"

struct stk_pq_dict_entry;

struct stk_pq_dict {
	struct stk_buf page;             /* the dictionary page's body */
	struct stk_pq_dict_entry *entries;
	size_t n, cap;
	struct stk_key_index index;         /* over entries, by their keys */
	bool length_prefixed;               /* strings; INT32 values are bare */
	/* the last key looked up: runs of one value (event kinds, units) skip the table */
	bool last_valid;
	uint64_t last_key;
	uint32_t last_index;
};

/* length_prefixed: true for a string column. */
void stk_pq_dict_init(struct stk_pq_dict *d, bool length_prefixed);
void stk_pq_dict_free(struct stk_pq_dict *d);
/* Empties it for the next row group, keeping its memory. */
void stk_pq_dict_reset(struct stk_pq_dict *d);
/* Bytes it holds now (page, entries, table): what counts toward a row group's bound. */
size_t stk_pq_dict_bytes(const struct stk_pq_dict *d);

/*
 * The index of the value the caller's key names, adding [p, p + n) when new.
 * 0; -1 out of memory; -2 when the key was seen with a value of another
 * length (a caller whose keys do not name one value each).
 */
int stk_pq_dict_keyed(struct stk_pq_dict *d, uint64_t key, const void *p, size_t n, uint32_t *index);
/* The same, found by the bytes themselves (hashed, then compared). 0 or -1. */
int stk_pq_dict_hashed(struct stk_pq_dict *d, const void *p, size_t n, uint32_t *index);
/* An INT32 value (its own key). 0 or -1. */
int stk_pq_dict_int32(struct stk_pq_dict *d, int32_t v, uint32_t *index);

#endif
