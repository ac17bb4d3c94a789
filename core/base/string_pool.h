/*
 * Interned strings: each distinct string stored once, in blocks, for as
 * long as the pool lives. The symbolizer keeps every mapping's path here, so
 * a thousand processes mapping libc hold one copy of its path, and the
 * pointers it hands out (a frame's module) stay valid after the process
 * entry that produced them is read again or compacted.
 */
#ifndef STK_STRING_POOL_H
#define STK_STRING_POOL_H

#include <stddef.h>

struct stk_string_pool;

struct stk_string_pool *stk_string_pool_new(void);
/* s's copy in the pool (the same pointer for equal strings); NULL when out of memory. */
const char *stk_string_pool_intern(struct stk_string_pool *p, const char *s);
/* Bytes the pool holds (its blocks and index). */
size_t stk_string_pool_bytes(const struct stk_string_pool *p);
void stk_string_pool_free(struct stk_string_pool *p);

#endif
