#include "harness.h"
#include "core/base/pidns.h"

static void tells_host_from_child_namespace(struct test_ctx *t)
{
	CHECK(t, stk_pidns_is_host_text("Name:\tx\nNSpid:\t1234\nNSpgid:\t1\n"));
	CHECK(t, !stk_pidns_is_host_text("Name:\tx\nNSpid:\t1234\t7\nNSpgid:\t1\n"));
	CHECK(t, stk_pidns_is_host_text("Name:\tx\nPid:\t5\n"));
}

const struct test_case pidns_tests[] = {
	{ "pidns_host_or_child", tells_host_from_child_namespace },
	{ NULL, NULL },
};
