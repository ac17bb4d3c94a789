#include "harness.h"
#include "core/ladder/mechanism.h"

static void picks_first_available_in_order(struct test_ctx *t)
{
	struct stk_feature_result r[STK_FEATURE_COUNT] = { 0 };
	const struct stk_mechanism *m;

	/* Nothing works: kernel functions have no mechanism, threadstate falls to /proc. */
	CHECK(t, stk_mechanism_choose(STK_ATTACH_KERNEL_FUNCTION, r) == NULL);
	m = stk_mechanism_choose(STK_ATTACH_THREAD_SAMPLING, r);
	CHECK(t, m && strcmp(m->name, "proc") == 0);

	/* This host's shape: fentry but no kprobes. */
	r[STK_FEATURE_FENTRY].available = true;
	r[STK_FEATURE_RAW_TP].available = true;
	m = stk_mechanism_choose(STK_ATTACH_KERNEL_FUNCTION, r);
	CHECK(t, m && strcmp(m->name, "fentry") == 0);
	m = stk_mechanism_choose(STK_ATTACH_SCHED_SWITCH, r);
	CHECK(t, m && strcmp(m->name, "raw_tp") == 0);
	m = stk_mechanism_choose(STK_ATTACH_TRACEPOINT, r);
	CHECK(t, m && strcmp(m->name, "raw_tp") == 0);

	/* An old kernel without BTF: legacy kprobes and tracepoints. */
	struct stk_feature_result old[STK_FEATURE_COUNT] = { 0 };
	old[STK_FEATURE_KPROBE_LEGACY].available = true;
	old[STK_FEATURE_TRACEPOINT].available = true;
	m = stk_mechanism_choose(STK_ATTACH_KERNEL_FUNCTION, old);
	CHECK(t, m && strcmp(m->name, "kprobe_legacy") == 0);
	m = stk_mechanism_choose(STK_ATTACH_SCHED_SWITCH, old);
	CHECK(t, m && strcmp(m->name, "tracepoint") == 0);
	m = stk_mechanism_choose(STK_ATTACH_TRACEPOINT, old);
	CHECK(t, m && strcmp(m->name, "tracepoint") == 0);
}

static void every_class_has_a_name_and_list(struct test_ctx *t)
{
	for (int c = 0; c < STK_ATTACH_CLASS_COUNT; c++) {
		size_t n = 0;
		CHECK(t, stk_mechanisms_for(c, &n) != NULL && n > 0);
		CHECK(t, stk_attach_class_name(c) != NULL);
		CHECK(t, stk_attach_class_users(c) != NULL);
	}
}

const struct test_case mechanism_tests[] = {
	{ "mechanism_order", picks_first_available_in_order },
	{ "mechanism_classes", every_class_has_a_name_and_list },
	{ NULL, NULL },
};
