/* Reading per-CPU maps: a counter slot summed over CPUs, and every key of a count map. */
#ifndef STK_PERCPU_MAPS_H
#define STK_PERCPU_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct bpf_map;

/* Slot of a PERCPU_ARRAY of u64, summed over the possible CPUs (0 when unreadable). */
uint64_t stk_percpu_sum(const struct bpf_map *map, uint32_t slot);

/* Called once per key of a PERCPU_HASH of u64 with its total over CPUs (keys whose total is 0 are skipped). */
typedef int (*stk_percpu_count_fn)(void *ctx, const void *key, uint64_t total);
/* Walks every key; stops at the first non-zero return of fn and returns it. -1 when out of memory. */
int stk_percpu_counts_each(int map_fd, size_t key_size, stk_percpu_count_fn fn, void *ctx);

#endif
