#include "harness.h"
#include "core/ladder/precondition.h"

static int find(const char *text, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = f ? stk_find_finish_task_switch(f, buf, len) : -2;

	if (f)
		fclose(f);
	return r;
}

static void finds_finish_task_switch(struct test_ctx *t)
{
	char name[64];

	CHECK(t, find("ffffffff81000000 T _stext\nffffffff813a2380 t finish_task_switch.isra.0\n", name,
		      sizeof(name)) == 0);
	CHECK_STR(t, name, "finish_task_switch.isra.0");
	/* the plain name wins over a clone listed first */
	CHECK(t, find("1 t finish_task_switch.constprop.0\n2 T finish_task_switch\n", name, sizeof(name)) == 0);
	CHECK_STR(t, name, "finish_task_switch");
	CHECK(t, find("1 t finish_task_switch_x\n2 d finish_task_switch\n", name, sizeof(name)) == -1);
	CHECK(t, find("", name, sizeof(name)) == -1);
}

const struct test_case sched_mech_tests[] = {
	{ "sched_mech_finish_task_switch", finds_finish_task_switch },
	{ NULL, NULL },
};
