#include <stdio.h>
#include <sys/stat.h>

#include "harness.h"
#include "../../core/btf_source.h"

static void touch(const char *root, const char *rel)
{
	char path[4096], dir[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

static void follows_the_documented_order(struct test_ctx *t)
{
	char root[256];
	struct stk_btf_source src;

	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	/* Nothing there: none, and no custom path for libbpf. */
	CHECK(t, stk_btf_resolve(NULL, "5.10.0-30-amd64", root, &src) == 0);
	CHECK(t, src.kind == STK_BTF_NONE);
	CHECK(t, stk_btf_custom_path(&src) == NULL);

	/* A vmlinux in a standard location is found... */
	touch(root, "/usr/lib/debug/boot/vmlinux-5.10.0-30-amd64");
	CHECK(t, stk_btf_resolve(NULL, "5.10.0-30-amd64", root, &src) == 0);
	CHECK(t, src.kind == STK_BTF_PATH);
	CHECK(t, strstr(src.path, "/usr/lib/debug/boot/vmlinux-5.10.0-30-amd64") != NULL);
	CHECK(t, stk_btf_custom_path(&src) == src.path);

	/* ...the earlier /boot one wins over it... */
	touch(root, "/boot/vmlinux-5.10.0-30-amd64");
	CHECK(t, stk_btf_resolve(NULL, "5.10.0-30-amd64", root, &src) == 0);
	CHECK(t, strstr(src.path, "/boot/vmlinux-5.10.0-30-amd64") != NULL);

	/* ...sysfs wins over both, and libbpf finds it without help... */
	touch(root, "/sys/kernel/btf/vmlinux");
	CHECK(t, stk_btf_resolve(NULL, "5.10.0-30-amd64", root, &src) == 0);
	CHECK(t, src.kind == STK_BTF_SYSFS);
	CHECK(t, stk_btf_custom_path(&src) == NULL);
	CHECK_STR(t, stk_btf_kind_name(src.kind), "sysfs");

	/* ...and an explicit file wins over everything, or fails if missing. */
	char explicit_path[300];
	snprintf(explicit_path, sizeof(explicit_path), "%s/boot/vmlinux-5.10.0-30-amd64", root);
	CHECK(t, stk_btf_resolve(explicit_path, "5.10.0-30-amd64", root, &src) == 0);
	CHECK(t, src.kind == STK_BTF_FILE);
	CHECK(t, stk_btf_resolve("/nonexistent/btf", "5.10.0-30-amd64", root, &src) == -1);
	remove_tree(root);
}

const struct test_case btf_source_tests[] = {
	{ "btf_source_order", follows_the_documented_order },
	{ NULL, NULL },
};
