#include "core/session/stack_resolve.h"

#include <stdlib.h>
#include <bpf/bpf.h>

#include "core/sym/symbolize.h"

bool stk_stack_id_missing(int32_t id)
{
	return id < 0 && id != STK_STACK_ID_NOT_REQUESTED && id != STK_STACK_ID_NONE;
}

struct stk_frame *stk_resolve_stack(int stack_map_fd, int32_t stack_id, uint32_t depth, bool kernel,
				    pid_t pid, struct stk_symbolizer *sym, size_t *n)
{
	uint64_t *ips = calloc(depth, sizeof(*ips));
	struct stk_frame *frames = NULL;
	size_t count = 0;

	*n = 0;
	if (!ips || stack_id < 0 || bpf_map_lookup_elem(stack_map_fd, &stack_id, ips))
		goto out;
	while (count < depth && ips[count])
		count++;
	frames = stk_symbolize_ips(sym, ips, count, kernel, pid, n);
out:
	free(ips);
	return frames;
}
