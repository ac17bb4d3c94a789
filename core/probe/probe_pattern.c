#include "core/probe/probe_pattern.h"

#include <stdio.h>
#include <string.h>

#define MAX_PARTS 4

const char *stk_probe_kind_name(enum stk_probe_kind k)
{
	switch (k) {
	case STK_PROBE_KERNEL_FUNCTION: return "kernel function";
	case STK_PROBE_TRACEPOINT: return "tracepoint";
	case STK_PROBE_USER_FUNCTION: return "user function";
	case STK_PROBE_USDT: return "USDT probe";
	}
	return "probe";
}

static int copy_part(char *dst, size_t size, const char *src, size_t n, const char *what, const char *text,
		     char *err, size_t len)
{
	if (n == 0) {
		snprintf(err, len, "pattern '%s': empty %s", text, what);
		return -1;
	}
	if (n >= size) {
		snprintf(err, len, "pattern '%s': %s too long", text, what);
		return -1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

int stk_probe_pattern_parse(const char *text, struct stk_probe_pattern *p, char *err, size_t len)
{
	const char *part[MAX_PARTS];
	size_t plen[MAX_PARTS], n = 0;
	const char *s = text;

	memset(p, 0, sizeof(*p));
	if (!text || !*text) {
		snprintf(err, len, "empty pattern");
		return -1;
	}
	for (;;) {
		const char *colon = strchr(s, ':');
		if (n == MAX_PARTS) {
			snprintf(err, len, "pattern '%s': too many ':' separated parts", text);
			return -1;
		}
		part[n] = s;
		plen[n++] = colon ? (size_t)(colon - s) : strlen(s);
		if (!colon)
			break;
		s = colon + 1;
	}
	const char *type = part[0];
	size_t tlen = plen[0];
	int is_p = tlen == 1 && type[0] == 'p', is_t = tlen == 1 && type[0] == 't', is_u = tlen == 1 && type[0] == 'u';

	if (n == 1) {
		p->kind = STK_PROBE_KERNEL_FUNCTION;
		return copy_part(p->name, sizeof(p->name), part[0], plen[0], "function name", text, err, len);
	}
	if (n == 2 && is_p) {
		p->kind = STK_PROBE_KERNEL_FUNCTION;
		return copy_part(p->name, sizeof(p->name), part[1], plen[1], "function name", text, err, len);
	}
	if (n == 2 && (is_t || is_u)) {
		snprintf(err, len, "pattern '%s': expected %s", text, is_t ? "t:CATEGORY:EVENT" : "u:LIB:PROBE");
		return -1;
	}
	if (n == 2) { /* LIB:FUNC */
		p->kind = STK_PROBE_USER_FUNCTION;
		return copy_part(p->lib, sizeof(p->lib), part[0], plen[0], "library", text, err, len) ||
		       copy_part(p->name, sizeof(p->name), part[1], plen[1], "function name", text, err, len) ? -1 : 0;
	}
	if (n == 3 && is_p && plen[1] == 0) { /* p::FUNC */
		p->kind = STK_PROBE_KERNEL_FUNCTION;
		return copy_part(p->name, sizeof(p->name), part[2], plen[2], "function name", text, err, len);
	}
	if (n == 3 && is_p) {
		p->kind = STK_PROBE_USER_FUNCTION;
		return copy_part(p->lib, sizeof(p->lib), part[1], plen[1], "library", text, err, len) ||
		       copy_part(p->name, sizeof(p->name), part[2], plen[2], "function name", text, err, len) ? -1 : 0;
	}
	if (n == 3 && is_t) {
		p->kind = STK_PROBE_TRACEPOINT;
		return copy_part(p->category, sizeof(p->category), part[1], plen[1], "tracepoint category", text, err,
				 len) ||
		       copy_part(p->name, sizeof(p->name), part[2], plen[2], "tracepoint name", text, err, len) ? -1 : 0;
	}
	if ((n == 3 || n == 4) && is_u) {
		p->kind = STK_PROBE_USDT;
		if (copy_part(p->lib, sizeof(p->lib), part[1], plen[1], "library", text, err, len))
			return -1;
		if (n == 4 && copy_part(p->category, sizeof(p->category), part[2], plen[2], "USDT provider", text, err,
					len))
			return -1;
		return copy_part(p->name, sizeof(p->name), part[n - 1], plen[n - 1], "USDT probe name", text, err, len);
	}
	snprintf(err, len, "pattern '%s': expected FUNC, p:FUNC, t:CATEGORY:EVENT, LIB:FUNC, p:LIB:FUNC or u:LIB:PROBE",
		 text);
	return -1;
}
