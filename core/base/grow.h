/* Growing a heap array geometrically; shared by every table stk builds. */
#ifndef STK_GROW_H
#define STK_GROW_H

#include <stddef.h>

/*
 * Makes *p (with *cap elements of elem bytes) hold at least need elements,
 * doubling from 16. 0, or -1 with *p untouched when out of memory.
 */
int stk_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
