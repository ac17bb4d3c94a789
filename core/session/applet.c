#include "core/session/applet.h"

#include <stdlib.h>

#include "core/base/log.h"
#include "core/session/session.h"

int stk_applet_run(const struct stk_applet_steps *a, void *run, int argc, char **argv)
{
	int ret = a->parse(run, argc, argv);

	if (ret) {
		a->teardown(run);
		return ret > 0 ? 0 : STK_EXIT_USAGE;
	}
	if (a->setup(run)) {
		a->teardown(run);
		return STK_EXIT_USAGE;
	}
	if (a->capture) {
		ret = a->capture(run);
	} else {
		struct stk_session *s = (struct stk_session *)((char *)run + a->session_offset);
		ret = stk_session_capture(s, &s->capture, run);
	}
	a->teardown(run);
	return ret;
}

int stk_applet_run_new(const struct stk_applet_steps *a, size_t size, const char *applet, int argc, char **argv)
{
	void *run = calloc(1, size);
	int ret;

	if (!run) {
		stk_error(applet, "out of memory");
		return 1;
	}
	ret = stk_applet_run(a, run, argc, argv);
	free(run);
	return ret;
}
