/*
 * Interned strings: each distinct string stored once, in blocks, for as
 * long as the pool lives, and numbered from 0 in the order first seen. The
 * symbolizer keeps every mapping's path here, so a thousand processes
 * mapping libc hold one copy of its path, and the pointers it hands out (a
 * frame's module) stay valid after the process entry that produced them is
 * read again or compacted; the event log's span labels, pprof's string
 * table and pmp's named frames are the numbered strings of one.
 */
#ifndef STK_STRING_POOL_H
#define STK_STRING_POOL_H

#include <stddef.h>
#include <stdint.h>

#define STK_STRING_NONE UINT32_MAX

struct stk_string_pool;

struct stk_string_pool *stk_string_pool_new(void);
/* s's copy in the pool (the same pointer for equal strings); NULL when out of memory. */
const char *stk_string_pool_intern(struct stk_string_pool *p, const char *s);
/* The number of the len bytes at s (no NUL among them), interned when new; STK_STRING_NONE when out of memory. */
uint32_t stk_string_pool_id(struct stk_string_pool *p, const char *s, size_t len);
/* The same, never adding: STK_STRING_NONE when the string is not in the pool. */
uint32_t stk_string_pool_find(const struct stk_string_pool *p, const char *s, size_t len);
/* The strings by number (NUL-terminated; as many as stk_string_pool_count), valid until the pool's next intern. */
const char *const *stk_string_pool_strings(const struct stk_string_pool *p);
size_t stk_string_pool_count(const struct stk_string_pool *p);
/* Bytes the pool holds (its blocks and index). */
size_t stk_string_pool_bytes(const struct stk_string_pool *p);
void stk_string_pool_free(struct stk_string_pool *p);

#endif
