#include <stdio.h>
#include <sys/stat.h>

#include "harness.h"
#include "core/base/os_release.h"

static void parses_quoting(struct test_ctx *t)
{
	struct stk_os_release os;

	stk_os_release_parse("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
			     "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nID=debian\n", &os);
	CHECK_STR(t, os.id, "debian");
	CHECK_STR(t, os.version_id, "12");
	/* Unquoted, single-quoted, escapes, comments, leading blanks. */
	stk_os_release_parse("# comment ID=nope\n  ID='ubuntu'\nVERSION_ID=22.04\n", &os);
	CHECK_STR(t, os.id, "ubuntu");
	CHECK_STR(t, os.version_id, "22.04");
	stk_os_release_parse("ID=\"my\\\"distro\"\nVERSION_ID=\"1.0\" \n", &os);
	CHECK_STR(t, os.id, "my\"distro");
	CHECK_STR(t, os.version_id, "1.0");
	/* Debian sid has no VERSION_ID; no ID at all means "linux" (os-release(5)). */
	stk_os_release_parse("PRETTY_NAME=\"Debian GNU/Linux forky/sid\"\nID=debian\n", &os);
	CHECK_STR(t, os.id, "debian");
	CHECK_STR(t, os.version_id, "");
	stk_os_release_parse("NAME=Something\n", &os);
	CHECK_STR(t, os.id, "linux");
	/* VERSION_ID_LIKE-style prefixes are other keys. */
	stk_os_release_parse("ID_LIKE=debian\nID=raspbian\nVERSION_IDX=9\n", &os);
	CHECK_STR(t, os.id, "raspbian");
	CHECK_STR(t, os.version_id, "");
}

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void reads_etc_then_usr_lib(struct test_ctx *t)
{
	char root[256], dir[512];
	struct stk_os_release os;

	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	CHECK(t, stk_os_release_read(root, &os) == -1);
	CHECK_STR(t, os.id, "linux");
	snprintf(dir, sizeof(dir), "%s/usr", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/usr/lib", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/etc", root);
	mkdir(dir, 0755);
	write_file(root, "/usr/lib/os-release", "ID=fedora\nVERSION_ID=40\n");
	CHECK(t, stk_os_release_read(root, &os) == 0);
	CHECK_STR(t, os.id, "fedora");
	CHECK(t, strstr(os.path, "/usr/lib/os-release") != NULL);
	write_file(root, "/etc/os-release", "ID=debian\nVERSION_ID=\"11\"\n");
	CHECK(t, stk_os_release_read(root, &os) == 0);
	CHECK_STR(t, os.id, "debian");
	CHECK_STR(t, os.version_id, "11");
	remove_tree(root);
}

const struct test_case os_release_tests[] = {
	{ "os_release_parse", parses_quoting },
	{ "os_release_files", reads_etc_then_usr_lib },
	{ NULL, NULL },
};
