/*
 * Records waiting on a key, released together when the key comes: each
 * release looks only at its own key's records, however many others wait
 * (the event log keeps thousands of events waiting for their stack copies).
 * Records are elem_size bytes, copied in; a key's records come out in the
 * order they went in.
 */
#ifndef STK_WAITLIST_H
#define STK_WAITLIST_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/key_index.h"

struct stk_waitlist_key;

struct stk_waitlist {
	size_t elem_size;
	struct stk_waitlist_key *keys; /* every key waited on since the list was last empty */
	size_t n_keys, cap_keys;
	struct stk_key_index index;    /* over keys */
	uint8_t *elems;                /* slot i's record at elems + i * elem_size */
	uint32_t *next;                /* slot i's successor (same key, or the free list) + 1, 0: none */
	size_t n_slots, cap_elems, cap_next;
	uint32_t free_slot;            /* a slot to reuse + 1, 0: none */
	size_t n_waiting;
};

typedef void (*stk_waitlist_fn)(void *ctx, const void *elem);

/* An empty list of elem_size-byte records. */
void stk_waitlist_init(struct stk_waitlist *w, size_t elem_size);
/* Keeps a copy of elem until key is released. 0, or -1 when out of memory. */
int stk_waitlist_add(struct stk_waitlist *w, uint64_t key, const void *elem);
/* fn(ctx, elem) for each record waiting on key, in the order they came; they wait no more. */
void stk_waitlist_release(struct stk_waitlist *w, uint64_t key, stk_waitlist_fn fn, void *ctx);
/* fn(ctx, elem) for every waiting record; the list is empty after. */
void stk_waitlist_release_all(struct stk_waitlist *w, stk_waitlist_fn fn, void *ctx);
void stk_waitlist_free(struct stk_waitlist *w);

#endif
