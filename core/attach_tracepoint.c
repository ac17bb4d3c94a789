#include "attach_tracepoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

int stk_tracepoint_attach(struct stk_probe_set *s, const struct stk_probe_load *load, char *const *names, size_t n,
			  char *err, size_t len)
{
	char why[256];

	if (stk_probe_set_load(s, load, "stk_sc_tracepoint", NULL, why, sizeof(why))) {
		snprintf(err, len, "tracepoint: %s", why);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char cat[256];
		const char *colon = strchr(names[i], ':');
		if (!colon || (size_t)(colon - names[i]) >= sizeof(cat))
			continue;
		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - names[i]), names[i]);
		if (stk_probe_set_add_link(s, bpf_program__attach_tracepoint(s->prog, cat, colon + 1))) {
			snprintf(err, len, "attaching to tracepoint %s failed: %s", names[i], strerror(errno));
			stk_probe_set_release(s);
			return -1;
		}
		stk_probe_set_progress(s, i + 1, n);
	}
	s->mechanism = "tracepoint";
	s->n_targets = n;
	return 0;
}
