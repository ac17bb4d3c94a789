#include <stdint.h>

#include "harness.h"
#include "core/sym/proc_maps.h"

static void parses_file_and_anonymous_lines(struct test_ctx *t)
{
	struct stk_map_entry e;

	CHECK(t, stk_maps_parse_line("55d0c3a00000-55d0c3a21000 r-xp 00002000 fe:01 1311 "
				     "/usr/bin/my prog (deleted)\n", &e) == 0);
	CHECK(t, e.start == 0x55d0c3a00000ULL && e.end == 0x55d0c3a21000ULL);
	CHECK(t, e.offset == 0x2000 && e.inode == 1311);
	CHECK(t, e.dev_major == 0xfe && e.dev_minor == 1);
	CHECK_STR(t, e.perms, "r-xp");
	CHECK_STR(t, e.path, "/usr/bin/my prog (deleted)");

	CHECK(t, stk_maps_parse_line("7ffd1000-7ffd3000 rw-p 00000000 00:00 0\n", &e) == 0);
	CHECK_STR(t, e.path, "");
	CHECK(t, stk_maps_parse_line("7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]", &e) == 0);
	CHECK_STR(t, e.path, "[vdso]");
	CHECK(t, stk_maps_parse_line("not a maps line", &e) == -1);
}

static int local_function(int x)
{
	return x * 3;
}

static void finds_own_text_offset(struct test_ctx *t)
{
	struct stk_map_entry e;
	uint64_t addr = (uint64_t)(uintptr_t)local_function, off = 0;

	CHECK(t, local_function(1) == 3);
	CHECK(t, stk_maps_file_offset(0, addr, &e, &off) == 0);
	CHECK(t, e.perms[2] == 'x');
	CHECK(t, off == addr - e.start + e.offset);
	CHECK(t, e.path[0] == '/');
}

const struct test_case proc_maps_tests[] = {
	{ "proc_maps_parse_line", parses_file_and_anonymous_lines },
	{ "proc_maps_own_text_offset", finds_own_text_offset },
	{ NULL, NULL },
};
