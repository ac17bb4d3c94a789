#include "harness.h"
#include "core/base/kernel_release.h"

static void parses_release_strings(struct test_ctx *t)
{
	struct stk_kernel_version v;

	CHECK(t, stk_kernel_version_parse("6.18.44-fc-v657", &v) == 0);
	CHECK(t, v.major == 6 && v.minor == 18 && v.patch == 44);
	CHECK(t, stk_kernel_version_parse("5.10.0-30-cloud-amd64", &v) == 0);
	CHECK(t, v.major == 5 && v.minor == 10 && v.patch == 0);
	CHECK(t, stk_kernel_version_parse("4.14", &v) == 0);
	CHECK(t, v.major == 4 && v.minor == 14 && v.patch == 0);
	CHECK(t, stk_kernel_version_parse("garbage", &v) == -1);
}

static void compares_versions(struct test_ctx *t)
{
	struct stk_kernel_version v = { 5, 8, 3 };

	CHECK(t, stk_kernel_version_cmp(&v, 5, 8) == 0);
	CHECK(t, stk_kernel_version_cmp(&v, 5, 10) < 0);
	CHECK(t, stk_kernel_version_cmp(&v, 4, 19) > 0);
	CHECK(t, stk_kernel_version_cmp(&v, 6, 1) < 0);
}

const struct test_case kernel_release_tests[] = {
	{ "kernel_release_parse", parses_release_strings },
	{ "kernel_release_compare", compares_versions },
	{ NULL, NULL },
};
