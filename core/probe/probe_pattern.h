/*
 * stackcount's probe patterns, as bcc writes them:
 *   FUNC, p:FUNC, p::FUNC     kernel function
 *   t:CATEGORY:EVENT          tracepoint
 *   LIB:FUNC, p:LIB:FUNC      user function in a library or executable
 *                             ("c" is the C library; a path works)
 *   u:LIB:PROBE               USDT probe (also u:LIB:PROVIDER:PROBE)
 * Names may hold '*' wildcards (or be regular expressions with -r).
 */
#ifndef STK_PROBE_PATTERN_H
#define STK_PROBE_PATTERN_H

#include <stddef.h>

enum stk_probe_kind {
	STK_PROBE_KERNEL_FUNCTION,
	STK_PROBE_TRACEPOINT,
	STK_PROBE_USER_FUNCTION,
	STK_PROBE_USDT,
};

struct stk_probe_pattern {
	enum stk_probe_kind kind;
	char lib[1024];     /* user function, USDT: library, executable or path */
	char category[256]; /* tracepoint category; USDT provider ("" = any) */
	char name[512];     /* function, event or probe name */
};

/* 0, or -1 with a one-line reason in err. */
int stk_probe_pattern_parse(const char *text, struct stk_probe_pattern *p, char *err, size_t len);
/* "kernel function", "tracepoint", "user function", "USDT probe". */
const char *stk_probe_kind_name(enum stk_probe_kind k);

#endif
