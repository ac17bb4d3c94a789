#include "core/threads/stack_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack/stack.h"
#include "core/sym/symbolize.h"
#include "core/threads/thread_sample.h"

char *stk_fold_addrs(struct stk_symbolizer *sym, uint32_t pid, const unsigned long long *addrs, size_t n, bool fold,
		     char *wchan, size_t wchan_len)
{
	const char *syms[128];
	size_t total = 0;

	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++) {
		struct stk_frame f = { 0 };
		if (pid)
			stk_symbolize_user(sym, (pid_t)pid, addrs[i], &f);
		else
			stk_symbolize_kernel(sym, addrs[i], &f);
		syms[i] = f.symbol ? f.symbol : "[unknown]";
		total += strlen(syms[i]) + 1;
	}
	if (wchan)
		snprintf(wchan, wchan_len, "%s", stk_wchan_from_frames(syms, n));
	if (!fold || !n)
		return NULL;
	char *folded = malloc(total), *p = folded;
	if (!folded)
		return NULL;
	for (size_t i = n; i-- > 0;) {
		size_t l = strlen(syms[i]);
		memcpy(p, syms[i], l);
		p += l;
		*p++ = i ? ';' : '\0';
	}
	return folded;
}
