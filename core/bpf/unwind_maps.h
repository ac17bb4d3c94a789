/*
 * The kernel unwinder's maps in the one BPF object (bpf/unwind_maps.h):
 * their names for an applet's selection, their sizes set before load, the
 * writes core/unwind/unwind_tables.c makes through its ops, and the chains
 * read back at the end.
 */
#ifndef STK_UNWIND_MAPS_BPF_H
#define STK_UNWIND_MAPS_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/unwind/unwind_tables.h"

struct stk_bpf;

/* NULL-terminated names of the unwinder's maps and programs, for struct stk_bpf_selection. */
extern const char *const stk_unwind_map_names[];
extern const char *const stk_unwind_program_names[];

struct stk_unwind_sizes {
	struct stk_unwind_capacity tables;
	uint32_t chains; /* chunks of STK_CHAIN_CHUNK frames the chain store holds */
	uint32_t rt_threads; /* threads whose interpreter state the walk can find (unwind_rt_threads) */
	uint32_t memo;       /* walks kept by thread, pc and sp (unwind_memo, about 380 bytes each) */
};
/* Defaults: about 40 MB of kernel memory, enough for a large server process and its libraries. */
void stk_unwind_sizes_default(struct stk_unwind_sizes *sz);
/* Before load. 0, or -1 (errno set). */
int stk_unwind_maps_size(struct stk_bpf *skel, const struct stk_unwind_sizes *sz);

/* The ops over the loaded maps; ctx is the skeleton. */
extern const struct stk_unwind_maps_ops stk_unwind_bpf_ops;

/*
 * Chain id's frames into pcs (max entries): *n frames, its stop reason and
 * whether it is a kernel chain. 0, or -1 when the id is not (or not wholly)
 * in the store.
 */
int stk_unwind_chain_read(const struct stk_bpf *skel, uint64_t id, uint64_t *pcs, size_t max, size_t *n,
			  unsigned *stop, bool *kernel);

/* Per-CPU walk statistics (enum stk_unwind_stat), summed. */
uint64_t stk_unwind_stat(const struct stk_bpf *skel, unsigned slot);

#endif
