#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/options.h"

static void parses_id_lists(struct test_ctx *t)
{
	uint32_t *ids = NULL;
	size_t n = 0;

	CHECK(t, stk_parse_id_list("12,345,6", &ids, &n) == 0 && n == 3);
	if (n == 3)
		CHECK(t, ids[0] == 12 && ids[1] == 345 && ids[2] == 6);
	free(ids);
	CHECK(t, stk_parse_id_list("7", &ids, &n) == 0 && n == 1 && ids[0] == 7);
	free(ids);
	CHECK(t, stk_parse_id_list("", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("0", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("1,", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("1,,2", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("-5", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("12abc", &ids, &n) == -1);
	CHECK(t, stk_parse_id_list("99999999999", &ids, &n) == -1);
}

static void parses_numbers_and_seconds(struct test_ctx *t)
{
	uint64_t v;
	long ms;

	CHECK(t, stk_parse_u64("49", 1, 1000, &v) == 0 && v == 49);
	CHECK(t, stk_parse_u64("0", 1, 1000, &v) == -1);
	CHECK(t, stk_parse_u64("1001", 1, 1000, &v) == -1);
	CHECK(t, stk_parse_u64("4x", 1, 1000, &v) == -1);
	CHECK(t, stk_parse_u64("-4", 0, 1000, &v) == -1);
	CHECK(t, stk_parse_seconds("2", &ms) == 0 && ms == 2000);
	CHECK(t, stk_parse_seconds("0.25", &ms) == 0 && ms == 250);
	CHECK(t, stk_parse_seconds("0", &ms) == -1);
	CHECK(t, stk_parse_seconds("abc", &ms) == -1);
	CHECK(t, stk_parse_seconds("1s", &ms) == -1);
}

static void checks_pid_existence(struct test_ctx *t)
{
	CHECK(t, stk_check_pid_exists((uint32_t)getpid()) == 0);
	CHECK(t, stk_check_pid_exists(0x7ffffff0) == -1);
}

const struct test_case options_tests[] = {
	{ "options_id_lists", parses_id_lists },
	{ "options_numbers", parses_numbers_and_seconds },
	{ "options_pid_exists", checks_pid_existence },
	{ NULL, NULL },
};
