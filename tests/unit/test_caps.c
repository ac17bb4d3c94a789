#include "harness.h"
#include "core/base/caps.h"

static void parses_root_status(struct test_ctx *t)
{
	const char *status = "Name:\tstk\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
			     "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n";
	struct stk_caps caps;
	char buf[128];

	CHECK(t, stk_caps_parse_status(status, &caps) == 0);
	CHECK(t, stk_caps_can_trace(&caps));
	CHECK(t, stk_caps_has(&caps, STK_CAP_BPF));
	stk_caps_describe(&caps, buf, sizeof(buf));
	CHECK(t, strstr(buf, "CAP_SYS_ADMIN") != NULL);
	CHECK(t, strstr(buf, "CAP_PERFMON") != NULL);
}

static void bpf_and_perfmon_without_sys_admin_can_trace(struct test_ctx *t)
{
	struct stk_caps caps = { .effective = (1ULL << STK_CAP_BPF) | (1ULL << STK_CAP_PERFMON) };

	CHECK(t, stk_caps_can_trace(&caps));
	caps.effective = 1ULL << STK_CAP_BPF;
	CHECK(t, !stk_caps_can_trace(&caps));
}

static void unprivileged_has_none(struct test_ctx *t)
{
	struct stk_caps caps;
	char buf[64];

	CHECK(t, stk_caps_parse_status("Name:\tx\nCapEff:\t0000000000000000\n", &caps) == 0);
	CHECK(t, !stk_caps_can_trace(&caps));
	stk_caps_describe(&caps, buf, sizeof(buf));
	CHECK_STR(t, buf, "none");
}

static void missing_capeff_is_an_error(struct test_ctx *t)
{
	struct stk_caps caps;

	CHECK(t, stk_caps_parse_status("Name:\tx\nCapPrm:\t0\n", &caps) == -1);
	CHECK(t, stk_caps_parse_status("Name:\tx\nCapEff:\tzz\n", &caps) == -1);
}

const struct test_case caps_tests[] = {
	{ "caps_parses_root_status", parses_root_status },
	{ "caps_bpf_perfmon_suffice", bpf_and_perfmon_without_sys_admin_can_trace },
	{ "caps_unprivileged", unprivileged_has_none },
	{ "caps_missing_capeff", missing_capeff_is_an_error },
	{ NULL, NULL },
};
