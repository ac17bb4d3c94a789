#include "core/threads/thread_idmap.h"

#include <stdlib.h>
#include <string.h>

/* Slot layout: [u32 key][u8 used][u8 seen][pad] then the value, 8-aligned. */
#define HDR 8

struct stk_idmap {
	unsigned char *slots;
	size_t cap, n, value_size, slot_size;
	void (*release)(void *value);
};

static unsigned char *slot_at(const struct stk_idmap *m, size_t i)
{
	return m->slots + i * m->slot_size;
}

struct stk_idmap *stk_idmap_new(size_t value_size, void (*release)(void *value))
{
	struct stk_idmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->value_size = value_size;
	m->slot_size = HDR + ((value_size + 7) & ~(size_t)7);
	m->release = release;
	return m;
}

static size_t hash(uint32_t key, size_t cap)
{
	return (size_t)((key * 2654435761u) & (cap - 1));
}

/* Index of key's slot, or of the empty slot where it would go. cap > n. */
static size_t find(const struct stk_idmap *m, uint32_t key)
{
	size_t i = hash(key, m->cap);

	for (;;) {
		unsigned char *s = slot_at(m, i);
		uint32_t k;
		memcpy(&k, s, sizeof(k));
		if (!s[4] || k == key)
			return i;
		i = (i + 1) & (m->cap - 1);
	}
}

static int rehash(struct stk_idmap *m, size_t cap)
{
	unsigned char *old = m->slots;
	size_t old_cap = m->cap;

	m->slots = calloc(cap, m->slot_size);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		unsigned char *s = old + i * m->slot_size;
		uint32_t k;
		if (!s[4])
			continue;
		memcpy(&k, s, sizeof(k));
		memcpy(slot_at(m, find(m, k)), s, m->slot_size);
	}
	free(old);
	return 0;
}

void *stk_idmap_get(struct stk_idmap *m, uint32_t key)
{
	if (!m->n)
		return NULL;
	unsigned char *s = slot_at(m, find(m, key));
	if (!s[4])
		return NULL;
	s[5] = 1;
	return s + HDR;
}

void *stk_idmap_put(struct stk_idmap *m, uint32_t key, bool *created)
{
	*created = false;
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64))
		return NULL;
	unsigned char *s = slot_at(m, find(m, key));
	if (!s[4]) {
		memset(s, 0, m->slot_size);
		memcpy(s, &key, sizeof(key));
		s[4] = 1;
		m->n++;
		*created = true;
	}
	s[5] = 1;
	return s + HDR;
}

void stk_idmap_sweep(struct stk_idmap *m)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot_at(m, i);
		if (!s[4])
			continue;
		if (!s[5]) {
			if (m->release)
				m->release(s + HDR);
			s[4] = 0;
		} else {
			s[5] = 0;
			kept++;
		}
	}
	m->n = kept;
	/* Removal breaks probe chains: re-insert what is left. */
	if (m->cap)
		rehash(m, m->cap);
}

void stk_idmap_clear(struct stk_idmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot_at(m, i);
		if (s[4] && m->release)
			m->release(s + HDR);
		s[4] = 0;
	}
	m->n = 0;
}

size_t stk_idmap_count(const struct stk_idmap *m)
{
	return m->n;
}

void stk_idmap_for_each(struct stk_idmap *m, int (*fn)(void *ctx, uint32_t key, void *value), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot_at(m, i);
		uint32_t k;
		if (!s[4])
			continue;
		memcpy(&k, s, sizeof(k));
		if (fn(ctx, k, s + HDR))
			return;
	}
}

void stk_idmap_free(struct stk_idmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot_at(m, i);
		if (s[4] && m->release)
			m->release(s + HDR);
	}
	free(m->slots);
	free(m);
}
