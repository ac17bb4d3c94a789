#include "core/threads/thread_idmap.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"

/* Entry layout: [u32 key][u8 seen][pad] then the value, 8-aligned. */
#define HDR 8
#define SEEN 4

struct stk_idmap {
	unsigned char *entries; /* in the order first put, n of them */
	size_t n, cap, value_size, entry_size;
	struct stk_key_index index; /* over entries, by key */
	void (*release)(void *value);
};

static unsigned char *entry_at(const struct stk_idmap *m, size_t i)
{
	return m->entries + i * m->entry_size;
}

struct stk_idmap *stk_idmap_new(size_t value_size, void (*release)(void *value))
{
	struct stk_idmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->value_size = value_size;
	m->entry_size = HDR + ((value_size + 7) & ~(size_t)7);
	m->index = (struct stk_key_index){ .key_size = sizeof(uint32_t), .stride = m->entry_size };
	m->release = release;
	return m;
}

void *stk_idmap_get(struct stk_idmap *m, uint32_t key)
{
	int64_t i = stk_key_index_find(&m->index, m->entries, &key);
	unsigned char *e;

	if (i < 0)
		return NULL;
	e = entry_at(m, (size_t)i);
	e[SEEN] = 1;
	return e + HDR;
}

void *stk_idmap_put(struct stk_idmap *m, uint32_t key, bool *created)
{
	int64_t i = stk_key_index_find(&m->index, m->entries, &key);
	unsigned char *e;

	*created = i < 0;
	if (i < 0) {
		if (stk_grow((void **)&m->entries, &m->cap, m->n + 1, m->entry_size))
			return NULL;
		e = entry_at(m, m->n);
		memset(e, 0, m->entry_size);
		memcpy(e, &key, sizeof(key));
		if (stk_key_index_add(&m->index, m->entries, m->n + 1))
			return NULL;
		i = (int64_t)m->n++;
	}
	e = entry_at(m, (size_t)i);
	e[SEEN] = 1;
	return e + HDR;
}

/* Indexes the entries again after some were dropped. */
static void reindex(struct stk_idmap *m)
{
	stk_key_index_clear(&m->index);
	for (size_t i = 0; i < m->n; i++)
		stk_key_index_add(&m->index, m->entries, i + 1); /* room for all already: no allocation */
}

void stk_idmap_sweep(struct stk_idmap *m)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->n; i++) {
		unsigned char *e = entry_at(m, i);

		if (!e[SEEN]) {
			if (m->release)
				m->release(e + HDR);
			continue;
		}
		e[SEEN] = 0;
		if (kept != i)
			memcpy(entry_at(m, kept), e, m->entry_size);
		kept++;
	}
	if (kept != m->n) {
		m->n = kept;
		reindex(m);
	}
}

void stk_idmap_clear(struct stk_idmap *m)
{
	for (size_t i = 0; m->release && i < m->n; i++)
		m->release(entry_at(m, i) + HDR);
	m->n = 0;
	stk_key_index_clear(&m->index);
}

size_t stk_idmap_count(const struct stk_idmap *m)
{
	return m->n;
}

void stk_idmap_for_each(struct stk_idmap *m, int (*fn)(void *ctx, uint32_t key, void *value), void *ctx)
{
	for (size_t i = 0; i < m->n; i++) {
		unsigned char *e = entry_at(m, i);
		uint32_t k;

		memcpy(&k, e, sizeof(k));
		if (fn(ctx, k, e + HDR))
			return;
	}
}

void stk_idmap_free(struct stk_idmap *m)
{
	if (!m)
		return;
	stk_idmap_clear(m);
	free(m->entries);
	stk_key_index_free(&m->index);
	free(m);
}
