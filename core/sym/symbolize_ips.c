/* Addresses (leaf first) to frames, through the symbolizer. */
#include <stdlib.h>

#include "core/sym/symbolize.h"

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
