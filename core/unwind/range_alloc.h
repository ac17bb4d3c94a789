/*
 * Ranges of slots in one of the kernel unwinder's arrays (rows, pages,
 * mappings): first fit over a sorted free list whose neighbours merge when
 * a range comes back. Capacity is what the BPF map was created with.
 */
#ifndef STK_RANGE_ALLOC_H
#define STK_RANGE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct stk_range {
	uint32_t start, len;
};

struct stk_range_alloc {
	uint32_t capacity;
	struct stk_range *free; /* sorted by start, never adjacent */
	size_t n_free, cap_free;
	uint64_t used, peak;
};

/* 0, or -1 when out of memory. */
int stk_range_alloc_init(struct stk_range_alloc *a, uint32_t capacity);
/* The start of len free slots, taken; -1 when no free run is that long (len 0: 0). */
int64_t stk_range_alloc_take(struct stk_range_alloc *a, uint32_t len);
/* Gives [start, start + len) back (it must have come from take). 0, or -1 when out of memory. */
int stk_range_alloc_give(struct stk_range_alloc *a, uint32_t start, uint32_t len);
void stk_range_alloc_release(struct stk_range_alloc *a);

#endif
