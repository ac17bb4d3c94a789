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

struct stk_applet {
	const char *name;
	const char *summary;
	int (*main)(const struct stk_invocation *inv); /* NULL: not implemented yet */
	bool bare_link;                     /* --install also creates the unprefixed name */
	int rank;                           /* place in `stk --list` and the usage, lowest first */
};

/*
 * An applet declares itself in its own file, and nothing else needs an edit:
 *   STK_APPLET(profile, .name = "profile", .summary = "...", .main = profile_main, .bare_link = true, .rank = 10);
 * The declarations land in one linker section that cmd/main.c reads
 * (stk_applets_collect), so the applet table is whatever files are linked in.
 */
#define STK_APPLET(id, ...)                                                                        \
	static const struct stk_applet stk_applet_##id                                             \
		__attribute__((used, section("stk_applets"), aligned(sizeof(void *)))) = { __VA_ARGS__ }

/* The applet named exactly name, or NULL. */
const struct stk_applet *stk_applet_find(const struct stk_applet *table, size_t n, const char *name);
/*
 * The applet that argv[0] names: its basename, with an optional "stk-"
 * prefix. NULL when argv[0] is stk itself (or anything else): multi-call mode.
 */
const struct stk_applet *stk_applet_from_argv0(const struct stk_applet *table, size_t n,
					       const char *argv0);

#endif
