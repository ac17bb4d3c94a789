#include "harness.h"
#include "core/ladder/sched_mech.h"

static void names_round_trip(struct test_ctx *t)
{
	enum stk_sched_mech m;

	for (int i = 0; i < STK_SCHED_MECH_COUNT; i++) {
		CHECK(t, stk_sched_mech_from_name(stk_sched_mech_name((enum stk_sched_mech)i), &m) == 0);
		CHECK(t, (int)m == i);
	}
	CHECK_STR(t, stk_sched_mech_name(STK_SCHED_TP_BTF), "tp_btf");
	CHECK(t, stk_sched_mech_from_name("fentry", &m) == -1);
	CHECK(t, stk_sched_mech_from_name("", &m) == -1);
}

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
	{ "sched_mech_names", names_round_trip },
	{ "sched_mech_finish_task_switch", finds_finish_task_switch },
	{ NULL, NULL },
};
