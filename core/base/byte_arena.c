/* Bytes from blocks, given back at once: see byte_arena.h. */
#include "core/base/byte_arena.h"

#include <stdlib.h>

struct stk_arena_block {
	struct stk_arena_block *next;
	size_t used, size;
	char data[];
};

void stk_byte_arena_init(struct stk_byte_arena *a, size_t block_bytes)
{
	*a = (struct stk_byte_arena){ .block_bytes = block_bytes ? block_bytes : 1 };
}

/* A block with room for n: a spare one when n fits the usual size, else a new one. */
static struct stk_arena_block *new_block(struct stk_byte_arena *a, size_t n)
{
	struct stk_arena_block *b;
	size_t size = n > a->block_bytes ? n : a->block_bytes;

	if (size == a->block_bytes && a->spare) {
		b = a->spare;
		a->spare = b->next;
	} else {
		if (size > (size_t)-1 - sizeof(*b) || !(b = malloc(sizeof(*b) + size)))
			return NULL;
		b->size = size;
		a->bytes += sizeof(*b) + size;
	}
	b->used = 0;
	return b;
}

void *stk_byte_arena_alloc(struct stk_byte_arena *a, size_t n)
{
	struct stk_arena_block *b = a->blocks;

	if (!b || b->size - b->used < n) {
		if (!(b = new_block(a, n)))
			return NULL;
		/* an oversized block goes behind the one being filled, which keeps its room */
		if (b->size > a->block_bytes && a->blocks) {
			b->next = a->blocks->next;
			a->blocks->next = b;
		} else {
			b->next = a->blocks;
			a->blocks = b;
		}
	}
	b->used += n;
	return b->data + b->used - n;
}

void stk_byte_arena_reset(struct stk_byte_arena *a)
{
	while (a->blocks) {
		struct stk_arena_block *b = a->blocks;

		a->blocks = b->next;
		if (b->size == a->block_bytes) {
			b->next = a->spare;
			a->spare = b;
		} else {
			a->bytes -= sizeof(*b) + b->size;
			free(b);
		}
	}
}

void stk_byte_arena_free(struct stk_byte_arena *a)
{
	stk_byte_arena_reset(a);
	while (a->spare) {
		struct stk_arena_block *b = a->spare;

		a->spare = b->next;
		free(b);
	}
	a->bytes = 0;
}
