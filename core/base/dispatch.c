#include "core/base/dispatch.h"

#include <string.h>

const struct stk_applet *stk_applet_find(const struct stk_applet *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

const struct stk_applet *stk_applet_from_argv0(const struct stk_applet *table, size_t n,
					       const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	const struct stk_applet *a;

	base = base ? base + 1 : argv0;
	if (strncmp(base, "stk-", 4) == 0)
		return stk_applet_find(table, n, base + 4);
	a = stk_applet_find(table, n, base);
	/* Unprefixed names only for applets that get a bare link ("info" is not one). */
	return a && a->bare_link ? a : NULL;
}
