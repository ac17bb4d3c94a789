/*
 * How every applet runs, from argv to exit status: parse, set up, capture,
 * tear down, with the exit codes stk promises (0 results or --help, 1 a
 * failure while printing, 2 bad input / unsupported kernel / no privileges).
 * An applet supplies the four steps over its own run struct.
 */
#ifndef STK_APPLET_H
#define STK_APPLET_H

#include <stddef.h>

struct stk_applet_steps {
	/* 0: go on; 1: done (--help printed); -1: a usage error was printed */
	int (*parse)(void *run, int argc, char **argv);
	/* privileges, BPF load and attach: 0, or -1 after printing why */
	int (*setup)(void *run);
	/*
	 * The capture and its results: 0, or 1 when results could not be
	 * written. NULL for the stack applets: their session's capture
	 * (stk_session_capture with the description setup left in the session
	 * at session_offset of the run struct).
	 */
	int (*capture)(void *run);
	/* releases whatever parse and setup made, however far they got */
	void (*teardown)(void *run);
	size_t session_offset; /* offsetof(RUN, session), with capture NULL */
};

int stk_applet_run(const struct stk_applet_steps *a, void *run, int argc, char **argv);
/* The same over a zeroed run struct of size bytes on the heap (for run structs too large for the stack). */
int stk_applet_run_new(const struct stk_applet_steps *a, size_t size, const char *applet, int argc, char **argv);

#endif
