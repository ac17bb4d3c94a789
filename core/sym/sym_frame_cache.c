/*
 * Frames already made, by address: a capture that keeps events symbolizes
 * each new stack as it first comes, and new stacks are mostly new paths
 * through functions seen before. Direct-mapped (fixed memory, no eviction
 * policy); a user frame is tagged with its process's mappings generation, so
 * mappings read again and found changed make its frames miss. Only frames
 * from files are kept (a JIT's perf map may name an address differently
 * later); kernel frames are kept by address (kallsyms is read once).
 */
#include "core/sym/sym_state.h"

#include <stdlib.h>

#include "core/base/key_index.h"

/* A power of two: about 2.4 MB, more distinct frames than a busy server's stacks show. */
#define CACHE_SLOTS 16384

struct sym_cached_frame {
	uint64_t addr;
	uint64_t generation; /* the process's mappings' (0: kernel) */
	pid_t pid;           /* 0: kernel */
	bool return_address;
	bool valid;
	struct stk_frame frame;
};

static size_t slot_of(pid_t pid, uint64_t addr, bool return_address)
{
	return (size_t)stk_hash_u64(addr ^ (uint64_t)(uint32_t)pid << 40 ^ (uint64_t)return_address << 63) &
	       (CACHE_SLOTS - 1);
}

bool sym_frame_cached(const struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr,
		      bool return_address, struct stk_frame *frame)
{
	const struct sym_cached_frame *c;

	if (!s->frame_cache)
		return false;
	c = &s->frame_cache[slot_of(pid, addr, return_address)];
	if (!c->valid || c->addr != addr || c->pid != pid || c->generation != generation ||
	    c->return_address != return_address)
		return false;
	*frame = c->frame;
	return true;
}

void sym_frame_keep(struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr, bool return_address,
		    const struct stk_frame *frame)
{
	struct sym_cached_frame *c;

	/* a failed allocation is tried again next time; nothing depends on the cache */
	if (!s->frame_cache && !(s->frame_cache = calloc(CACHE_SLOTS, sizeof(*s->frame_cache))))
		return;
	c = &s->frame_cache[slot_of(pid, addr, return_address)];
	*c = (struct sym_cached_frame){ .addr = addr, .generation = generation, .pid = pid,
					.return_address = return_address, .valid = true, .frame = *frame };
}

void sym_frame_cache_free(struct stk_symbolizer *s)
{
	free(s->frame_cache);
	s->frame_cache = NULL;
}
