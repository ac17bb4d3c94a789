#include "core/parquet/dictionary.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/bytes.h"
#include "core/base/grow.h"

struct stk_pq_dict_entry {
	uint64_t key;
	uint32_t offset; /* of the value's bytes in the page (after a length prefix) */
	uint32_t len;
	bool keyed;      /* the caller's key, not a hash: matched without comparing bytes */
};

void stk_pq_dict_init(struct stk_pq_dict *d, bool length_prefixed)
{
	*d = (struct stk_pq_dict){ .length_prefixed = length_prefixed };
}

void stk_pq_dict_free(struct stk_pq_dict *d)
{
	stk_buf_free(&d->page);
	free(d->entries);
	free(d->slots);
	*d = (struct stk_pq_dict){ 0 };
}

void stk_pq_dict_reset(struct stk_pq_dict *d)
{
	d->page.len = 0;
	d->page.oom = false;
	d->n = 0;
	d->last_valid = false;
	if (d->slots)
		memset(d->slots, 0, d->n_slots * sizeof(*d->slots));
}

size_t stk_pq_dict_bytes(const struct stk_pq_dict *d)
{
	return d->page.len + d->n * sizeof(*d->entries) + d->n_slots * sizeof(*d->slots);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

uint64_t stk_pq_hash_bytes(const void *data, size_t n)
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
	stk_bytes_copy_short(tail, p + i, n - i); /* under 16 */
	a = (a ^ tail[0]) * 0x9fb21c651e98df25ULL;
	b = (b ^ tail[1]) * 0xff51afd7ed558ccdULL;
	return mix(a ^ (b << 23 | b >> 41));
}

static size_t slot_of(const struct stk_pq_dict *d, uint64_t key)
{
	return (size_t)(mix(key) & (d->n_slots - 1));
}

static int grow_table(struct stk_pq_dict *d)
{
	size_t n_slots = d->n_slots ? d->n_slots * 2 : 64;
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -1;
	free(d->slots);
	d->slots = slots;
	d->n_slots = n_slots;
	for (size_t i = 0; i < d->n; i++) {
		size_t s = slot_of(d, d->entries[i].key);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = (uint32_t)(i + 1);
	}
	return 0;
}

static int add(struct stk_pq_dict *d, uint64_t key, bool keyed, const void *p, size_t n, size_t slot,
	       uint32_t *index)
{
	size_t before = d->page.len;

	if (n > UINT32_MAX || d->n >= UINT32_MAX - 1 || stk_grow((void **)&d->entries, &d->cap, d->n + 1,
								 sizeof(*d->entries)) < 0)
		return -1;
	if (d->length_prefixed)
		stk_buf_le32(&d->page, (uint32_t)n);
	stk_buf_put(&d->page, p, n);
	if (d->page.oom || d->page.len > UINT32_MAX) {
		d->page.len = before;
		d->page.oom = false;
		return -1;
	}
	d->entries[d->n] = (struct stk_pq_dict_entry){
		.key = key, .offset = (uint32_t)(d->page.len - n), .len = (uint32_t)n, .keyed = keyed
	};
	d->slots[slot] = (uint32_t)(d->n + 1);
	*index = (uint32_t)d->n++;
	if (d->n * 2 > d->n_slots && grow_table(d) < 0)
		return -1;
	return 0;
}

/* The slot holding key's entry, or the empty slot where it goes. */
static size_t probe(const struct stk_pq_dict *d, uint64_t key, bool keyed, const void *p, size_t n)
{
	size_t s = slot_of(d, key);

	for (;; s = (s + 1) & (d->n_slots - 1)) {
		const struct stk_pq_dict_entry *e;

		if (!d->slots[s])
			return s;
		e = &d->entries[d->slots[s] - 1];
		if (e->key != key || e->keyed != keyed)
			continue;
		if (keyed || (e->len == n && stk_bytes_equal(d->page.data + e->offset, p, n)))
			return s;
	}
}

static int lookup(struct stk_pq_dict *d, uint64_t key, bool keyed, const void *p, size_t n, uint32_t *index)
{
	size_t s;

	if (!d->slots && grow_table(d) < 0)
		return -1;
	s = probe(d, key, keyed, p, n);
	if (!d->slots[s])
		return add(d, key, keyed, p, n, s, index);
	*index = d->slots[s] - 1;
	return keyed && d->entries[*index].len != n ? -2 : 0;
}

int stk_pq_dict_keyed(struct stk_pq_dict *d, uint64_t key, const void *p, size_t n, uint32_t *index)
{
	int rc;

	if (d->last_valid && d->last_key == key) {
		*index = d->last_index;
		return d->entries[*index].len != n ? -2 : 0;
	}
	rc = lookup(d, key, true, p, n, index);
	if (rc == 0) {
		d->last_valid = true;
		d->last_key = key;
		d->last_index = *index;
	}
	return rc;
}

int stk_pq_dict_hashed(struct stk_pq_dict *d, const void *p, size_t n, uint32_t *index)
{
	return lookup(d, stk_pq_hash_bytes(p, n), false, p, n, index);
}

int stk_pq_dict_int32(struct stk_pq_dict *d, int32_t v, uint32_t *index)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16),
			  (uint8_t)((uint32_t)v >> 24) };

	return stk_pq_dict_keyed(d, (uint32_t)v, le, sizeof(le), index);
}
