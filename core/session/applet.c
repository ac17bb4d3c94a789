#include "core/session/applet.h"

#include <stdlib.h>

#include "core/base/log.h"

int stk_applet_run(const struct stk_applet_steps *a, void *run, const struct stk_invocation *inv)
{
	int ret = a->parse(run, inv);

	if (ret) {
		a->teardown(run);
		return ret > 0 ? 0 : STK_EXIT_USAGE;
	}
	if (a->setup(run)) {
		a->teardown(run);
		return STK_EXIT_USAGE;
	}
	ret = a->capture(run);
	a->teardown(run);
	return ret;
}

int stk_applet_run_new(const struct stk_applet_steps *a, size_t size, const char *applet, const struct stk_invocation *inv)
{
	void *run = calloc(1, size);
	int ret;

	if (!run) {
		stk_error(applet, "out of memory");
		return 1;
	}
	ret = stk_applet_run(a, run, inv);
	free(run);
	return ret;
}
