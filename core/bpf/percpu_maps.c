#include "core/bpf/percpu_maps.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

uint64_t stk_percpu_sum(const struct bpf_map *map, uint32_t slot)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, total = 0;

	if (ncpu <= 0 || !(vals = calloc((size_t)ncpu, sizeof(*vals))))
		return 0;
	if (bpf_map__lookup_elem(map, &slot, sizeof(slot), vals, (size_t)ncpu * sizeof(*vals), 0) == 0)
		for (int i = 0; i < ncpu; i++)
			total += vals[i];
	free(vals);
	return total;
}

int stk_percpu_counts_each(int map_fd, size_t key_size, stk_percpu_count_fn fn, void *ctx)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *percpu = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*percpu)) : NULL;
	unsigned char *keys = calloc(2, key_size); /* the current key, then the next */
	void *key = keys, *next = keys + key_size;
	bool first = true;
	int ret = 0;

	if (!percpu || !keys) {
		free(percpu);
		free(keys);
		return -1;
	}
	while (ret == 0 && bpf_map_get_next_key(map_fd, first ? NULL : key, next) == 0) {
		uint64_t total = 0;

		memcpy(key, next, key_size);
		first = false;
		if (bpf_map_lookup_elem(map_fd, key, percpu))
			continue;
		for (int i = 0; i < ncpu; i++)
			total += percpu[i];
		if (total)
			ret = fn(ctx, key, total);
	}
	free(percpu);
	free(keys);
	return ret;
}
