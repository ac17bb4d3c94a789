/* Busybox-style applet lookup: from argv[0] or from the first argument. */
#ifndef STK_DISPATCH_H
#define STK_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

/* What an applet runs with. */
struct stk_invocation {
	int argc;
	char **argv;         /* its arguments as if run through its link: argv[0] its name */
	const char *command; /* the whole command line as typed, joined by spaces (what a recording says of itself) */
};

/*
 * An applet run in steps, each over its own run struct (zeroed, on the heap,
 * released by teardown however far the others got).
 */
struct stk_applet_steps {
	/* 0: go on; 1: done (--help printed); -1: a usage error was printed */
	int (*parse)(void *run, const struct stk_invocation *inv);
	/* privileges, BPF load and attach: 0, or -1 after printing why */
	int (*setup)(void *run);
	/* the capture and its results (stack applets: stk_session_capture): 0, or 1 when results could not be written */
	int (*capture)(void *run);
	void (*teardown)(void *run);
};

struct stk_applet {
	const char *name;
	const char *summary;
	/* how it runs: its steps over a run struct of run_size bytes, or a main of its own (NULL both: not implemented yet) */
	const struct stk_applet_steps *steps;
	size_t run_size;
	int (*main)(const struct stk_invocation *inv);
	bool bare_link;                     /* --install also creates the unprefixed name */
	int rank;                           /* place in `stk --list` and the usage, lowest first */
};

/*
 * An applet declares itself in its own file, and nothing else needs an edit:
 *   STK_APPLET(profile, .name = "profile", .summary = "...", .steps = &steps, .run_size = sizeof(struct profile_run),
 *              .bare_link = true, .rank = 10);
 * The declarations land in one linker section that cmd/main.c reads
 * (stk_applets_collect), so the applet table is whatever files are linked in.
 */
#define STK_APPLET(id, ...)                                                                        \
	static const struct stk_applet stk_applet_##id                                             \
		__attribute__((used, section("stk_applets"), aligned(sizeof(void *)))) = { __VA_ARGS__ }

/*
 * Runs a as inv says, with the exit codes stk promises: 0 results or --help,
 * 1 a failure while printing or out of memory, 2 bad input, unsupported
 * kernel or no privileges.
 */
int stk_applet_run(const struct stk_applet *a, const struct stk_invocation *inv);
/* The applet named exactly name, or NULL. */
const struct stk_applet *stk_applet_find(const struct stk_applet *table, size_t n, const char *name);
/*
 * The applet that argv[0] names: its basename, with an optional "stk-"
 * prefix. NULL when argv[0] is stk itself (or anything else): multi-call mode.
 */
const struct stk_applet *stk_applet_from_argv0(const struct stk_applet *table, size_t n,
					       const char *argv0);

#endif
