#include "core/bpf/libbpf_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

/* -v shows libbpf's warnings; its debug chatter only with STK_LIBBPF_DEBUG=1. */
static int print_libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	const char *debug = getenv("STK_LIBBPF_DEBUG");

	if (level == LIBBPF_DEBUG && !(debug && *debug == '1'))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void stk_libbpf_set_verbose(int verbose)
{
	libbpf_set_print(verbose ? print_libbpf_verbose : print_libbpf_quiet);
}
