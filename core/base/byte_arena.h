/*
 * Bytes handed out from blocks and given back all at once. What is made and
 * dropped in bulk (the event log's stack text, interned strings) costs a
 * pointer bump instead of a malloc each, and a reset keeps the blocks for
 * what comes next: the C library's allocator would hand freed groups back
 * to the kernel and fault their pages in again on the next use.
 */
#ifndef STK_BYTE_ARENA_H
#define STK_BYTE_ARENA_H

#include <stddef.h>

struct stk_arena_block;

struct stk_byte_arena {
	struct stk_arena_block *blocks; /* in use, the newest (the one filled) first */
	struct stk_arena_block *spare;  /* emptied by a reset, for reuse */
	size_t block_bytes;
	size_t bytes; /* held: blocks in use and spare */
};

/* An empty arena whose blocks hold block_bytes (an allocation larger than that gets a block of its own). */
void stk_byte_arena_init(struct stk_byte_arena *a, size_t block_bytes);
/* n bytes (unaligned), valid until the next reset; NULL when out of memory. */
void *stk_byte_arena_alloc(struct stk_byte_arena *a, size_t n);
/* Forgets everything handed out, keeping the blocks of block_bytes for reuse. */
void stk_byte_arena_reset(struct stk_byte_arena *a);
void stk_byte_arena_free(struct stk_byte_arena *a);

#endif
