#include "core/session/stack_maps.h"

#include <stdint.h>
#include <bpf/libbpf.h>

/* A filter map holds one entry per target; at least one so that it can be created. */
static uint32_t filter_size(size_t n)
{
	return n ? (uint32_t)n : 1;
}

int stk_stack_maps_size(const struct stk_stack_maps *m, const struct stk_stack_opts *o)
{
	if (bpf_map__set_max_entries(m->stacks, (uint32_t)o->stack_storage_size) ||
	    bpf_map__set_value_size(m->stacks, (uint32_t)(o->max_depth * sizeof(uint64_t))) ||
	    bpf_map__set_max_entries(m->counts, m->counts_size))
		return -1;
	if (m->pids && bpf_map__set_max_entries(m->pids, filter_size(o->n_pids)))
		return -1;
	if (m->tids && bpf_map__set_max_entries(m->tids, filter_size(o->n_tids)))
		return -1;
	if (m->scratch) {
		int ncpu = libbpf_num_possible_cpus();
		if (ncpu < 1 || bpf_map__set_max_entries(m->scratch, (uint32_t)ncpu))
			return -1;
	}
	return 0;
}

static int fill(struct bpf_map *map, const uint32_t *ids, size_t n)
{
	uint8_t one = 1;

	for (size_t i = 0; map && i < n; i++)
		if (bpf_map__update_elem(map, &ids[i], sizeof(uint32_t), &one, sizeof(one), 0))
			return -1;
	return 0;
}

int stk_stack_maps_fill_targets(const struct stk_stack_maps *m, const struct stk_stack_opts *o)
{
	return fill(m->pids, o->pids, o->n_pids) || fill(m->tids, o->tids, o->n_tids) ? -1 : 0;
}
