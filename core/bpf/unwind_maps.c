/* The kernel unwinder's maps over libbpf: see unwind_maps.h. */
#include "core/bpf/unwind_maps.h"

#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "core/bpf/percpu_maps.h"

const char *const stk_unwind_map_names[] = {
	"unwind_rows", "unwind_pages", "unwind_mappings", "unwind_procs", "unwind_chains",
	"unwind_scratch", "unwind_stats", "unwind_requests", "unwind_runtimes", "unwind_rt_threads", "unwind_memo",
	"unwind_kmemo", NULL,
};
const char *const stk_unwind_program_names[] = { "stk_unwind_exec", "stk_unwind_exit", NULL };

void stk_unwind_sizes_default(struct stk_unwind_sizes *sz)
{
	*sz = (struct stk_unwind_sizes){
		.tables = { .rows = 2u << 20, .pages = 256u << 10, .mappings = 65536, .procs = 16384 },
		.chains = 32768,
		.rt_threads = 32768,
		.memo = 16384,
	};
}

int stk_unwind_maps_size(struct stk_bpf *skel, const struct stk_unwind_sizes *sz)
{
	const struct stk_unwind_capacity *c = &sz->tables;

	if (bpf_map__set_max_entries(skel->maps.unwind_rows, c->rows) ||
	    bpf_map__set_max_entries(skel->maps.unwind_pages, c->pages) ||
	    bpf_map__set_max_entries(skel->maps.unwind_mappings, c->mappings) ||
	    bpf_map__set_max_entries(skel->maps.unwind_procs, c->procs) ||
	    bpf_map__set_max_entries(skel->maps.unwind_chains, sz->chains) ||
	    bpf_map__set_max_entries(skel->maps.unwind_runtimes, c->procs) ||
	    bpf_map__set_max_entries(skel->maps.unwind_rt_threads, sz->rt_threads) ||
	    bpf_map__set_max_entries(skel->maps.unwind_memo, sz->memo) ||
	    bpf_map__set_max_entries(skel->maps.unwind_kmemo, sz->memo))
		return -1;
	return 0;
}

/* n consecutive array slots from first: one batch call where the kernel has it (5.6), else one by one. */
static int write_array(const struct bpf_map *map, uint32_t first, const void *values, size_t size, size_t n)
{
	int fd = bpf_map__fd(map);
	uint32_t keys[1024];
	const char *v = values;

	while (n) {
		__u32 count = n < 1024 ? (__u32)n : 1024;

		__u32 want = count;

		for (__u32 i = 0; i < want; i++)
			keys[i] = first + i;
		if (bpf_map_update_batch(fd, keys, v, &count, NULL)) {
			for (__u32 i = 0; i < want; i++)
				if (bpf_map_update_elem(fd, &keys[i], v + i * size, BPF_ANY))
					return -1;
		}
		count = want;
		first += count;
		v += (size_t)count * size;
		n -= count;
	}
	return 0;
}

static int write_rows(void *ctx, uint32_t first, const struct stk_cfi_row *rows, size_t n)
{
	return write_array(((struct stk_bpf *)ctx)->maps.unwind_rows, first, rows, sizeof(*rows), n);
}

static int write_pages(void *ctx, uint32_t first, const uint32_t *pages, size_t n)
{
	return write_array(((struct stk_bpf *)ctx)->maps.unwind_pages, first, pages, sizeof(*pages), n);
}

static int write_mappings(void *ctx, uint32_t first, const struct stk_unwind_mapping *m, size_t n)
{
	return write_array(((struct stk_bpf *)ctx)->maps.unwind_mappings, first, m, sizeof(*m), n);
}

static int write_proc(void *ctx, uint32_t tgid, const struct stk_unwind_proc *p)
{
	return bpf_map_update_elem(bpf_map__fd(((struct stk_bpf *)ctx)->maps.unwind_procs), &tgid, p, BPF_ANY);
}

static int delete_proc(void *ctx, uint32_t tgid)
{
	int ret = bpf_map_delete_elem(bpf_map__fd(((struct stk_bpf *)ctx)->maps.unwind_procs), &tgid);

	return ret && errno != ENOENT ? -1 : 0;
}

const struct stk_unwind_maps_ops stk_unwind_bpf_ops = {
	.write_rows = write_rows,
	.write_pages = write_pages,
	.write_mappings = write_mappings,
	.write_proc = write_proc,
	.delete_proc = delete_proc,
};

int stk_unwind_chain_read(const struct stk_bpf *skel, uint64_t id, uint64_t *pcs, size_t max, size_t *n,
			  unsigned *stop, bool *kernel)
{
	int fd = bpf_map__fd(skel->maps.unwind_chains);
	struct stk_chain_key key = { .id = id };
	struct stk_chain_chunk c;
	size_t total = 0, want = 0;

	for (uint32_t k = 0; k < STK_CHAIN_CHUNKS; k++) {
		key.chunk = k;
		if (bpf_map_lookup_elem(fd, &key, &c))
			return -1;
		if (k == 0) {
			want = (size_t)c.n < max ? (size_t)c.n : max;
			*stop = c.stop;
			*kernel = c.flags & STK_CHAIN_KERNEL;
		}
		for (size_t i = 0; i < STK_CHAIN_CHUNK && total < want; i++)
			pcs[total++] = c.pcs[i];
		if (total >= want)
			break;
	}
	*n = total;
	return 0;
}

uint64_t stk_unwind_stat(const struct stk_bpf *skel, unsigned slot)
{
	return stk_percpu_sum(skel->maps.unwind_stats, slot);
}
