/* Runs every unit test; prints PASS/FAIL per test for tests/run.sh to count. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const struct test_case *const suites[] = {
	caps_tests, kernel_release_tests, btf_source_tests, proc_maps_tests,
	dispatch_tests, install_tests, mechanism_tests,
};

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "unit";
	int failed = 0;

	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		for (const struct test_case *tc = suites[s]; tc->name; tc++) {
			struct test_ctx t = { .name = tc->name };
			tc->fn(&t);
			printf("%s %s/%s\n", t.failures ? "FAIL" : "PASS", prefix, tc->name);
			failed += t.failures != 0;
		}
	}
	return failed ? 1 : 0;
}
