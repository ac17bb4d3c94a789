/*
 * --span options: where a span opens and closes on a thread, and which
 * argument labels it.
 *   LIB:FUNC[:argN]                   a user function: its entry opens, its return closes
 *   u:LIB:PROVIDER:START,END[:argN]   a USDT pair: START opens, END closes
 * argN (arg0 the first) makes the label FUNC=VALUE, else it is FUNC (the
 * USDT start probe's name). LIB as stackcount takes it (c, a library, an
 * executable, a path); names are exact, no wildcards.
 */
#ifndef STK_SPAN_SPEC_H
#define STK_SPAN_SPEC_H

#include <stdbool.h>
#include <stddef.h>

/* --span options one capture takes (bpf/event_types.h has a program pair per one). */
#define STK_SPAN_MAX 8
/* Highest N of argN: the registers every architecture passes them in (USDT: its 12 arguments). */
#define STK_SPAN_FUNC_ARG_MAX 5
#define STK_SPAN_USDT_ARG_MAX 11

struct stk_span_spec {
	bool usdt;
	char lib[1024];
	char provider[256]; /* USDT */
	char start[512];    /* the function, or the USDT start probe */
	char end[512];      /* USDT: the end probe */
	int arg;            /* -1: none */
	char label[512];    /* FUNC, or the start probe */
};

/* 0, or -1 with a one-line reason in err. */
int stk_span_spec_parse(const char *text, struct stk_span_spec *s, char *err, size_t len);

#endif
