/*
 * The floor search every sorted table uses: the last element whose key is at
 * or below x (the symbol, range or row holding an address).
 * STK_FLOOR(at, n, i, le) sets the size_t `at` to how many of the n
 * elements satisfy `le`, an expression in the element's index `i` (a size_t
 * the macro declares) that holds for a leading run of them: "element i's
 * key <= x". Element at - 1 is then the floor, none when at is 0. With
 * "key < x" instead, element at is the first whose key is at or above x.
 */
#ifndef STK_FLOOR_H
#define STK_FLOOR_H

#include <stddef.h>

#define STK_FLOOR(at, n, i, le)                                                     \
	do {                                                                        \
		size_t stk_floor_lo_ = 0, stk_floor_hi_ = (n);                      \
		while (stk_floor_lo_ < stk_floor_hi_) {                             \
			size_t i = stk_floor_lo_ + (stk_floor_hi_ - stk_floor_lo_) / 2; \
			if (le)                                                     \
				stk_floor_lo_ = i + 1;                              \
			else                                                        \
				stk_floor_hi_ = i;                                  \
		}                                                                   \
		(at) = stk_floor_lo_;                                               \
	} while (0)

#endif
