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
	uint64_t ips[128];
	size_t total = 0;
	struct stk_frame *frames;

	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++)
		ips[i] = addrs[i];
	/* the one path every stack takes: interpreted frames (two words each) named as in every applet */
	frames = stk_symbolize_ips(sym, ips, n, pid == 0, (pid_t)pid, &n);
	for (size_t i = 0; i < n; i++) {
		syms[i] = frames[i].symbol ? frames[i].symbol : "[unknown]";
		total += strlen(syms[i]) + 1;
	}
	free(frames);
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

void stk_fold_innermost(const char *folded, size_t n, char *buf, size_t len)
{
	size_t used = 0, taken = 0;
	const char *end;

	if (!len)
		return;
	buf[0] = '\0';
	if (!folded)
		return;
	end = folded + strlen(folded);
	while (end > folded && taken < n) {
		const char *start = end;
		while (start > folded && start[-1] != ';')
			start--;
		int w = snprintf(buf + used, len - used, "%s%.*s", taken ? "," : "", (int)(end - start), start);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0'; /* no half frame */
			return;
		}
		used += (size_t)w;
		taken++;
		end = start > folded ? start - 1 : folded;
	}
	if (end > folded)
		snprintf(buf + used, len - used, ",...");
}
