/* Addresses (leaf first) to frames, through the symbolizer. */
#include <stdlib.h>

#include "bpf/runtime_types.h"
#include "core/sym/symbolize.h"

struct stk_frame *stk_symbolize_ips(struct stk_symbolizer *sym, const uint64_t *ips, size_t n, bool kernel,
				    pid_t pid, size_t *n_out)
{
	struct stk_frame *frames = n ? calloc(n, sizeof(*frames)) : NULL;

	*n_out = 0;
	if (!frames)
		return NULL;
	size_t k = 0;

	for (size_t i = 0; i < n; k++) {
		unsigned words = kernel ? 1 : stk_rt_entry_words(ips[i], i + 1 < n, i + 1 < n ? ips[i + 1] : 0);

		if (kernel)
			stk_symbolize_kernel(sym, ips[i], &frames[k]);
		else if (stk_rt_is_frame_word(ips[i])) /* an interpreted frame: one or two words */
			stk_symbolize_interpreted(sym, pid, ips[i], words == 2 ? ips[i + 1] : 0, &frames[k]);
		else if (i) /* a return address: its call is one byte back (inline scope, line) */
			stk_symbolize_user_caller(sym, pid, ips[i], &frames[k]);
		else
			stk_symbolize_user(sym, pid, ips[i], &frames[k]);
		i += words;
	}
	*n_out = k;
	return frames;
}
