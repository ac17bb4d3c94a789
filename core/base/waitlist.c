/* Records waiting on a key: see waitlist.h. */
#include "core/base/waitlist.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_waitlist_key {
	uint64_t key;
	uint32_t head, tail; /* its records' slots + 1, 0: none */
};

void stk_waitlist_init(struct stk_waitlist *w, size_t elem_size)
{
	*w = (struct stk_waitlist){
		.elem_size = elem_size,
		.index = { .key_size = sizeof(uint64_t), .stride = sizeof(struct stk_waitlist_key) },
	};
}

/* Forgets the keys once nothing waits, so the list does not grow with the keys ever seen. */
static void reset_if_empty(struct stk_waitlist *w)
{
	if (w->n_waiting)
		return;
	w->n_keys = 0;
	w->n_slots = 0;
	w->free_slot = 0;
	stk_key_index_clear(&w->index);
}

/* key's entry, added when add is set and it has none. Its index, or -1. */
static int64_t key_entry(struct stk_waitlist *w, uint64_t key, bool add)
{
	struct stk_waitlist_key k = { .key = key };
	int64_t at = stk_key_index_find(&w->index, w->keys, &k);

	if (at >= 0 || !add)
		return at;
	if (stk_grow((void **)&w->keys, &w->cap_keys, w->n_keys + 1, sizeof(*w->keys)))
		return -1;
	w->keys[w->n_keys] = k;
	if (stk_key_index_add(&w->index, w->keys, w->n_keys + 1))
		return -1;
	return (int64_t)w->n_keys++;
}

/* A free slot, or -1 when out of memory. */
static int64_t take_slot(struct stk_waitlist *w)
{
	if (w->free_slot) {
		uint32_t s = w->free_slot - 1;

		w->free_slot = w->next[s];
		return s;
	}
	if (w->n_slots >= UINT32_MAX - 1 ||
	    stk_grow((void **)&w->elems, &w->cap_elems, w->n_slots + 1, w->elem_size) ||
	    stk_grow((void **)&w->next, &w->cap_next, w->n_slots + 1, sizeof(*w->next)))
		return -1;
	return (int64_t)w->n_slots++;
}

static void give_slot(struct stk_waitlist *w, uint32_t s)
{
	w->next[s] = w->free_slot;
	w->free_slot = s + 1;
}

int stk_waitlist_add(struct stk_waitlist *w, uint64_t key, const void *elem)
{
	int64_t slot = take_slot(w), at;

	if (slot < 0)
		return -1;
	if ((at = key_entry(w, key, true)) < 0) {
		give_slot(w, (uint32_t)slot);
		return -1;
	}
	struct stk_waitlist_key *k = &w->keys[at];
	memcpy(w->elems + (size_t)slot * w->elem_size, elem, w->elem_size);
	w->next[slot] = 0;
	if (k->tail)
		w->next[k->tail - 1] = (uint32_t)slot + 1;
	else
		k->head = (uint32_t)slot + 1;
	k->tail = (uint32_t)slot + 1;
	w->n_waiting++;
	return 0;
}

/* fn for each record of key entry at, whose slots are then free. */
static void release_entry(struct stk_waitlist *w, size_t at, stk_waitlist_fn fn, void *ctx)
{
	struct stk_waitlist_key *k = &w->keys[at];

	for (uint32_t s = k->head; s;) {
		uint32_t next = w->next[s - 1];

		fn(ctx, w->elems + (size_t)(s - 1) * w->elem_size);
		give_slot(w, s - 1);
		w->n_waiting--;
		s = next;
	}
	k->head = k->tail = 0;
}

void stk_waitlist_release(struct stk_waitlist *w, uint64_t key, stk_waitlist_fn fn, void *ctx)
{
	int64_t at = w->n_waiting ? key_entry(w, key, false) : -1;

	if (at < 0)
		return;
	release_entry(w, (size_t)at, fn, ctx);
	reset_if_empty(w);
}

void stk_waitlist_release_all(struct stk_waitlist *w, stk_waitlist_fn fn, void *ctx)
{
	for (size_t i = 0; i < w->n_keys; i++)
		release_entry(w, i, fn, ctx);
	reset_if_empty(w);
}

void stk_waitlist_free(struct stk_waitlist *w)
{
	free(w->keys);
	free(w->elems);
	free(w->next);
	stk_key_index_free(&w->index);
	stk_waitlist_init(w, w->elem_size);
}
