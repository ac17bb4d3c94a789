/* Interned strings: see string_pool.h. */
#include "core/base/string_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/byte_arena.h"

/* Strings are packed into blocks of this size (a longer one gets a block of its own). */
#define BLOCK_BYTES 16384

struct stk_string_pool {
	struct stk_byte_arena strings;
	const char **slots; /* open addressing, a power of two; NULL: empty */
	size_t n_slots, n_strings;
};

static uint64_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

struct stk_string_pool *stk_string_pool_new(void)
{
	struct stk_string_pool *p = calloc(1, sizeof(*p));

	if (p)
		stk_byte_arena_init(&p->strings, BLOCK_BYTES);
	return p;
}

/* Doubles the index (load kept under one half). 0, or -1. */
static int grow_index(struct stk_string_pool *p)
{
	size_t n = p->n_slots ? p->n_slots * 2 : 64;
	const char **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < p->n_slots; i++) {
		const char *s = p->slots[i];

		if (!s)
			continue;
		for (size_t k = hash_of(s) & (n - 1);; k = (k + 1) & (n - 1))
			if (!slots[k]) {
				slots[k] = s;
				break;
			}
	}
	free(p->slots);
	p->slots = slots;
	p->n_slots = n;
	return 0;
}

const char *stk_string_pool_intern(struct stk_string_pool *p, const char *s)
{
	size_t len = strlen(s) + 1, k;
	char *copy;

	if ((p->n_strings + 1) * 2 > p->n_slots && grow_index(p))
		return NULL;
	for (k = hash_of(s) & (p->n_slots - 1); p->slots[k]; k = (k + 1) & (p->n_slots - 1))
		if (strcmp(p->slots[k], s) == 0)
			return p->slots[k];
	if (!(copy = stk_byte_arena_alloc(&p->strings, len)))
		return NULL;
	memcpy(copy, s, len);
	p->slots[k] = copy;
	p->n_strings++;
	return copy;
}

size_t stk_string_pool_bytes(const struct stk_string_pool *p)
{
	return p->strings.bytes + p->n_slots * sizeof(*p->slots);
}

void stk_string_pool_free(struct stk_string_pool *p)
{
	if (!p)
		return;
	stk_byte_arena_free(&p->strings);
	free(p->slots);
	free(p);
}
