/*
 * How every applet runs, from argv to exit status: parse, set up, capture,
 * tear down, with the exit codes stk promises (0 results or --help, 1 a
 * failure while printing, 2 bad input / unsupported kernel / no privileges).
 * An applet supplies the four steps over its own run struct.
 */
#ifndef STK_APPLET_H
#define STK_APPLET_H

#include <stddef.h>

#include "core/base/dispatch.h"

struct stk_applet_steps {
	/* 0: go on; 1: done (--help printed); -1: a usage error was printed */
	int (*parse)(void *run, const struct stk_invocation *inv);
	/* privileges, BPF load and attach: 0, or -1 after printing why */
	int (*setup)(void *run);
	/* the capture and its results (stack applets: stk_session_capture): 0, or 1 when results could not be written */
	int (*capture)(void *run);
	/* releases whatever parse and setup made, however far they got */
	void (*teardown)(void *run);
};

int stk_applet_run(const struct stk_applet_steps *a, void *run, const struct stk_invocation *inv);
/* The same over a zeroed run struct of size bytes on the heap (for run structs too large for the stack). */
int stk_applet_run_new(const struct stk_applet_steps *a, size_t size, const char *applet, const struct stk_invocation *inv);

#endif
