/*
 * Fixed-size values by thread or process id (over core/base/key_index.h),
 * with a "seen" sweep: threadstate keeps per-thread and per-process state
 * across sample passes and drops what the last pass no longer saw.
 */
#ifndef STK_THREAD_IDMAP_H
#define STK_THREAD_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_idmap;

/* release (may be NULL) frees what a value owns when it is dropped. */
struct stk_idmap *stk_idmap_new(size_t value_size, void (*release)(void *value));
/* The value of key (marked seen), or NULL; valid until the next put, sweep or clear. */
void *stk_idmap_get(struct stk_idmap *m, uint32_t key);
/* The value of key, inserted zeroed (*created true) when absent; NULL when out of memory. */
void *stk_idmap_put(struct stk_idmap *m, uint32_t key, bool *created);
/* Drops every entry not got or put since the previous sweep. */
void stk_idmap_sweep(struct stk_idmap *m);
/* Drops every entry. */
void stk_idmap_clear(struct stk_idmap *m);
size_t stk_idmap_count(const struct stk_idmap *m);
/* Calls fn on every entry in the order first put (without marking it seen); nonzero from fn stops. */
void stk_idmap_for_each(struct stk_idmap *m, int (*fn)(void *ctx, uint32_t key, void *value), void *ctx);
void stk_idmap_free(struct stk_idmap *m);

#endif
