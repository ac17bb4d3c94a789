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
	stk_key_index_free(&d->index);
	*d = (struct stk_pq_dict){ 0 };
}

void stk_pq_dict_reset(struct stk_pq_dict *d)
{
	d->page.len = 0;
	d->page.oom = false;
	d->n = 0;
	d->last_valid = false;
	stk_key_index_clear(&d->index);
}

size_t stk_pq_dict_bytes(const struct stk_pq_dict *d)
{
	return d->page.len + d->n * sizeof(*d->entries) + d->index.n_slots * sizeof(*d->index.slots);
}

/* Entry i's slot hash: the caller's key, or the bytes' hash, mixed. */
static uint64_t entry_hash(const void *ctx, size_t i)
{
	const struct stk_pq_dict *d = ctx;

	return stk_hash_u64(d->entries[i].key);
}

/* Appends [p, p + n) as the entry the probe missed. */
static int add(struct stk_pq_dict *d, uint64_t key, bool keyed, const void *p, size_t n,
	       const struct stk_key_probe *probe, uint32_t *index)
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
	if (stk_key_index_put(&d->index, probe, d->n + 1, entry_hash, d) < 0) {
		d->page.len = before;
		return -1;
	}
	*index = (uint32_t)d->n++;
	return 0;
}

static int lookup(struct stk_pq_dict *d, uint64_t key, bool keyed, const void *p, size_t n, uint32_t *index)
{
	struct stk_key_probe probe;

	for (int64_t i = stk_key_index_first(&d->index, stk_hash_u64(key), &probe); i >= 0;
	     i = stk_key_index_next(&d->index, &probe)) {
		const struct stk_pq_dict_entry *e = &d->entries[i];

		if (e->key != key || e->keyed != keyed)
			continue;
		if (keyed || (e->len == n && stk_bytes_equal(d->page.data + e->offset, p, n))) {
			*index = (uint32_t)i;
			return keyed && e->len != n ? -2 : 0;
		}
	}
	return add(d, key, keyed, p, n, &probe, index);
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
	return lookup(d, stk_hash_bytes(p, n), false, p, n, index);
}

int stk_pq_dict_int32(struct stk_pq_dict *d, int32_t v, uint32_t *index)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16),
			  (uint8_t)((uint32_t)v >> 24) };

	return stk_pq_dict_keyed(d, (uint32_t)v, le, sizeof(le), index);
}
