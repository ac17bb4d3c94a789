/* Interned strings: see string_pool.h. */
#include "core/base/string_pool.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/byte_arena.h"
#include "core/base/bytes.h"
#include "core/base/grow.h"
#include "core/base/key_index.h"

/* Strings are packed into blocks of this size (a longer one gets a block of its own). */
#define BLOCK_BYTES 16384

struct stk_string_pool {
	struct stk_byte_arena bytes;
	const char **strings; /* by number, into bytes */
	uint32_t *lens;       /* by number */
	size_t n, cap, cap_lens;
	struct stk_key_index index; /* over strings */
};

struct stk_string_pool *stk_string_pool_new(void)
{
	struct stk_string_pool *p = calloc(1, sizeof(*p));

	if (p)
		stk_byte_arena_init(&p->bytes, BLOCK_BYTES);
	return p;
}

static uint64_t string_hash(const void *ctx, size_t i)
{
	const struct stk_string_pool *p = ctx;

	return stk_hash_bytes(p->strings[i], p->lens[i]);
}

/* s's number, or STK_STRING_NONE with *probe where it goes. */
static uint32_t find(const struct stk_string_pool *p, const char *s, size_t len, struct stk_key_probe *probe)
{
	for (int64_t i = stk_key_index_first(&p->index, stk_hash_bytes(s, len), probe); i >= 0;
	     i = stk_key_index_next(&p->index, probe))
		if (p->lens[i] == len && stk_bytes_equal(p->strings[i], s, len))
			return (uint32_t)i;
	return STK_STRING_NONE;
}

uint32_t stk_string_pool_find(const struct stk_string_pool *p, const char *s, size_t len)
{
	struct stk_key_probe probe;

	return find(p, s, len, &probe);
}

uint32_t stk_string_pool_id(struct stk_string_pool *p, const char *s, size_t len)
{
	struct stk_key_probe probe;
	uint32_t id = find(p, s, len, &probe);
	char *copy;

	if (id != STK_STRING_NONE)
		return id;
	if (len >= UINT32_MAX || p->n >= STK_STRING_NONE - 1 ||
	    stk_grow((void **)&p->strings, &p->cap, p->n + 1, sizeof(*p->strings)) ||
	    stk_grow((void **)&p->lens, &p->cap_lens, p->n + 1, sizeof(*p->lens)) ||
	    !(copy = stk_byte_arena_alloc(&p->bytes, len + 1)))
		return STK_STRING_NONE;
	stk_bytes_copy(copy, s, len);
	copy[len] = '\0';
	p->strings[p->n] = copy;
	p->lens[p->n] = (uint32_t)len;
	if (stk_key_index_put(&p->index, &probe, p->n + 1, string_hash, p))
		return STK_STRING_NONE; /* the copy stays in the block, unnumbered */
	return (uint32_t)p->n++;
}

const char *stk_string_pool_intern(struct stk_string_pool *p, const char *s)
{
	uint32_t id = stk_string_pool_id(p, s, strlen(s));

	return id == STK_STRING_NONE ? NULL : p->strings[id];
}

const char *const *stk_string_pool_strings(const struct stk_string_pool *p)
{
	return p->strings;
}

size_t stk_string_pool_count(const struct stk_string_pool *p)
{
	return p->n;
}

size_t stk_string_pool_bytes(const struct stk_string_pool *p)
{
	return p->bytes.bytes + p->cap * sizeof(*p->strings) + p->cap_lens * sizeof(*p->lens) +
	       p->index.n_slots * sizeof(*p->index.slots);
}

void stk_string_pool_free(struct stk_string_pool *p)
{
	if (!p)
		return;
	stk_byte_arena_free(&p->bytes);
	free(p->strings);
	free(p->lens);
	stk_key_index_free(&p->index);
	free(p);
}
