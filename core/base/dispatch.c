#include "core/base/dispatch.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"

int stk_applet_run(const struct stk_applet *a, const struct stk_invocation *inv)
{
	const struct stk_applet_steps *st = a->steps;
	void *run;
	int ret;

	if (!st)
		return a->main(inv);
	if (!(run = calloc(1, a->run_size))) {
		stk_error(a->name, "out of memory");
		return 1;
	}
	ret = st->parse(run, inv);
	if (ret)
		ret = ret > 0 ? 0 : STK_EXIT_USAGE;
	else if (st->setup(run))
		ret = STK_EXIT_USAGE;
	else
		ret = st->capture(run);
	st->teardown(run);
	free(run);
	return ret;
}

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
