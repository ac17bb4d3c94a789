/*
 * Frames known only by name (a kernel stack from /proc/TID/stack, a
 * thread's state as a leading frame): each name interned once and stood for
 * by an id in the place of an address, so stacks that hold them are
 * compared and counted like address stacks. Ids are non-canonical
 * addresses: no real code address on x86_64 or arm64 is one.
 */
#ifndef STK_FRAME_NAMES_H
#define STK_FRAME_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define STK_FRAME_NAME_BASE 0x5354000000000000ULL
#define STK_FRAME_NAME_MAX (1u << 24)

struct stk_frame_names;

struct stk_frame_names *stk_frame_names_new(void);
void stk_frame_names_free(struct stk_frame_names *n);
/* The id of the len bytes of name (interned on first sight), or 0 when out of memory or full. */
uint64_t stk_frame_names_id(struct stk_frame_names *n, const char *name, size_t len);
/* The name of id, or NULL when id is not one (an address); lives as long as n. */
const char *stk_frame_names_name(const struct stk_frame_names *n, uint64_t id);

#endif
