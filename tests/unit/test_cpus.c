#include <stdlib.h>

#include "harness.h"
#include "core/base/cpus.h"

static void parses_kernel_cpu_lists(struct test_ctx *t)
{
	int *cpus = NULL;
	size_t n = 0;

	CHECK(t, stk_cpus_parse_list("0-3,8,10-11\n", &cpus, &n) == 0);
	CHECK(t, n == 7);
	if (n == 7)
		CHECK(t, cpus[0] == 0 && cpus[3] == 3 && cpus[4] == 8 && cpus[5] == 10 && cpus[6] == 11);
	free(cpus);
	CHECK(t, stk_cpus_parse_list("0", &cpus, &n) == 0 && n == 1 && cpus[0] == 0);
	free(cpus);
	CHECK(t, stk_cpus_parse_list("", &cpus, &n) == -1);
	CHECK(t, stk_cpus_parse_list("3-1", &cpus, &n) == -1);
	CHECK(t, stk_cpus_parse_list("1,x", &cpus, &n) == -1);
	CHECK(t, stk_cpus_parse_list("2,1", &cpus, &n) == -1);
	CHECK(t, stk_cpus_parse_list("0-99999999", &cpus, &n) == -1);
}

static void reads_online_cpus(struct test_ctx *t)
{
	int *cpus = NULL;
	size_t n = 0;

	CHECK(t, stk_cpus_online(&cpus, &n) == 0);
	CHECK(t, n >= 1);
	free(cpus);
}

const struct test_case cpus_tests[] = {
	{ "cpus_parse_list", parses_kernel_cpu_lists },
	{ "cpus_online", reads_online_cpus },
	{ NULL, NULL },
};
