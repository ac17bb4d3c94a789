/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling user space about a process the first time its stacks are kept, so
 * it reads the mappings while the process still exists (short-lived ones
 * too), and again after an exec, when the old mappings describe another
 * program. An exec shows as a comm the process has not had: seen remembers
 * every (tgid, comm) pair once, because threads of one process often name
 * themselves differently and must not look like an exec each time they take
 * turns. Shared by the stack applets; each passes its own maps: seen an
 * LRU_HASH u64 (tgid << 32 | comm digest) -> u8, events a PERF_EVENT_ARRAY.
 */
#ifndef STK_ANNOUNCE_PROCESS_H
#define STK_ANNOUNCE_PROCESS_H

#include "bpf_errno.h"

static __always_inline u64 stk_comm_digest(const char comm[16])
{
	u64 lo, hi;

	__builtin_memcpy(&lo, comm, 8);
	__builtin_memcpy(&hi, comm + 8, 8);
	return lo ^ (hi * 31);
}

/*
 * Returns 0, or -1 when the notification could not be sent (count it as
 * lost). Unsent, the pair is forgotten so that the process's next event
 * tries again; before user space opened the buffer (the programs attach
 * first) that is no loss at all.
 */
static __always_inline int stk_announce_process(void *ctx, void *seen, void *events, u32 tgid,
						const char comm[16])
{
	u64 digest = stk_comm_digest(comm);
	u64 key = (u64)tgid << 32 | (u32)(digest ^ (digest >> 32));
	u8 one = 1;
	long err;

	if (tgid == 0 || bpf_map_lookup_elem(seen, &key))
		return 0;
	bpf_map_update_elem(seen, &key, &one, BPF_ANY);
	err = bpf_perf_event_output(ctx, events, BPF_F_CURRENT_CPU, &tgid, sizeof(tgid));
	if (!err)
		return 0;
	bpf_map_delete_elem(seen, &key);
	return err == -STK_ENOENT ? 0 : -1;
}

#endif
