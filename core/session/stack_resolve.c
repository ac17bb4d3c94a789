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

struct stk_frame *stk_symbolize_ips(struct stk_symbolizer *sym, const uint64_t *ips, size_t n, bool kernel,
				    pid_t pid, size_t *n_out)
{
	struct stk_frame *frames = n ? calloc(n, sizeof(*frames)) : NULL;

	*n_out = 0;
	if (!frames)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (kernel)
			stk_symbolize_kernel(sym, ips[i], &frames[i]);
		else if (i) /* a return address: its call is one byte back (inline scope, line) */
			stk_symbolize_user_caller(sym, pid, ips[i], &frames[i]);
		else
			stk_symbolize_user(sym, pid, ips[i], &frames[i]);
	}
	*n_out = n;
	return frames;
}
