#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "btf/btf_archive_pack.h"
#include "core/btf/btf_file_check.h"
#include "core/btf/btf_source.h"

static void touch_with(const char *root, const char *rel, const char *text)
{
	char path[4096], dir[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A minimal raw BTF: header (24 bytes), no types, a one-byte string section. */
static const unsigned char raw_btf[25] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

static int write_raw_btf(const char *path)
{
	FILE *f = fopen(path, "w");

	return f && fwrite(raw_btf, 1, sizeof(raw_btf), f) == sizeof(raw_btf) && fclose(f) == 0 ? 0 : -1;
}

static void touch(const char *root, const char *rel)
{
	touch_with(root, rel, "");
}

static void follows_the_documented_order(struct test_ctx *t)
{
	char root[256];
	struct stk_btf_source src;

	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	struct stk_btf_env env = { .release = "5.10.0-30-amd64", .machine = "x86_64", .sysroot = root };
	/* Nothing there: none, and no custom path for libbpf. */
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_NONE);
	CHECK(t, !src.kernel_btf);
	CHECK(t, stk_btf_custom_path(&src) == NULL);

	/* A vmlinux in a standard location is found... */
	touch(root, "/usr/lib/debug/boot/vmlinux-5.10.0-30-amd64");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_PATH);
	CHECK(t, src.kernel_btf);
	CHECK(t, strstr(src.path, "/usr/lib/debug/boot/vmlinux-5.10.0-30-amd64") != NULL);
	CHECK(t, stk_btf_custom_path(&src) == src.path);

	/* ...the earlier /boot one wins over it... */
	touch(root, "/boot/vmlinux-5.10.0-30-amd64");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, strstr(src.path, "/boot/vmlinux-5.10.0-30-amd64") != NULL);

	/* ...sysfs wins over both, and libbpf finds it without help... */
	touch(root, "/sys/kernel/btf/vmlinux");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_SYSFS);
	CHECK(t, stk_btf_custom_path(&src) == NULL);
	CHECK_STR(t, stk_btf_kind_name(src.kind), "sysfs");

	/* ...and an explicit file wins over everything, or fails if missing. */
	char explicit_path[300];
	snprintf(explicit_path, sizeof(explicit_path), "%s/boot/vmlinux-5.10.0-30-amd64", root);
	CHECK(t, stk_btf_resolve(explicit_path, &env, &src) == -1); /* empty: not BTF */
	write_raw_btf(explicit_path);
	CHECK(t, stk_btf_resolve(explicit_path, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_FILE);
	CHECK(t, src.kernel_btf); /* sysfs is still there for attach targets */
	CHECK(t, stk_btf_resolve("/nonexistent/btf", &env, &src) == -1);
	remove_tree(root);
}

static const char fake_btf[] = "minimized BTF bytes for 6.1.0-50-cloud-amd64";

static unsigned char *one_kernel_archive(size_t *size)
{
	struct stk_btf_pack_entry e = { .btf = fake_btf, .size = sizeof(fake_btf) };
	unsigned char *bytes = NULL;
	size_t unique;
	char err[128];

	snprintf(e.key.id, sizeof(e.key.id), "debian");
	snprintf(e.key.version_id, sizeof(e.key.version_id), "12");
	snprintf(e.key.arch, sizeof(e.key.arch), "x86_64");
	snprintf(e.key.release, sizeof(e.key.release), "6.1.0-50-cloud-amd64");
	stk_btf_pack(&e, 1, &bytes, size, &unique, err, sizeof(err));
	return bytes;
}

static void falls_back_to_the_embedded_archive(struct test_ctx *t)
{
	char root[256], line[1024], got[128] = "";
	struct stk_btf_source src;
	size_t size = 0;
	unsigned char *archive = one_kernel_archive(&size);

	CHECK(t, archive != NULL);
	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	struct stk_btf_env env = { .release = "6.1.0-50-cloud-amd64", .machine = "x86_64", .sysroot = root,
				   .archive = archive, .archive_size = size };
	touch_with(root, "/etc/os-release", "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_EMBEDDED);
	CHECK(t, !src.kernel_btf); /* types for CO-RE, not attach targets */
	CHECK_STR(t, src.entry, "debian/12/x86_64/6.1.0-50-cloud-amd64");
	/* The BTF is in an anonymous file libbpf can open by path; no file on disk. */
	CHECK(t, stk_btf_custom_path(&src) == src.path && strncmp(src.path, "/proc/self/fd/", 14) == 0);
	int fd = open(src.path, O_RDONLY | O_CLOEXEC);
	CHECK(t, fd >= 0 && read(fd, got, sizeof(got)) == (ssize_t)sizeof(fake_btf));
	CHECK(t, memcmp(got, fake_btf, sizeof(fake_btf)) == 0);
	if (fd >= 0)
		close(fd);
	stk_btf_describe(&src, line, sizeof(line));
	CHECK(t, strncmp(line, "embedded debian/12/x86_64/6.1.0-50-cloud-amd64 (", 48) == 0);
	int held = src.fd;
	stk_btf_source_release(&src);
	CHECK(t, src.fd == -1 && fcntl(held, F_GETFD) == -1);
	stk_btf_source_release(&src); /* twice is harmless */

	/* A kernel BTF of its own still wins over the archive. */
	touch(root, "/sys/kernel/btf/vmlinux");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0 && src.kind == STK_BTF_SYSFS);
	remove_tree(root);
	free(archive);
}

static void names_the_key_when_nothing_matches(struct test_ctx *t)
{
	char root[256], msg[1024];
	struct stk_btf_source src;
	size_t size = 0;
	unsigned char *archive = one_kernel_archive(&size);

	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	struct stk_btf_env env = { .release = "6.1.0-50-cloud-amd64", .machine = "x86_64", .sysroot = root,
				   .archive = archive, .archive_size = size };
	/* Same kernel on another arch: no entry. */
	env.machine = "aarch64";
	touch_with(root, "/usr/lib/os-release", "ID=debian\nVERSION_ID='12'\n");
	CHECK(t, stk_btf_resolve(NULL, &env, &src) == 0);
	CHECK(t, src.kind == STK_BTF_NONE && src.fd == -1);
	CHECK_STR(t, src.key, "debian/12/arm64/6.1.0-50-cloud-amd64");
	stk_btf_missing(&src, msg, sizeof(msg));
	CHECK(t, strstr(msg, "looked up debian/12/arm64/6.1.0-50-cloud-amd64") != NULL);
	CHECK(t, strstr(msg, "embedded archive (1 kernel) has no such entry") != NULL);
	CHECK(t, strstr(msg, "--btf FILE") != NULL);
	CHECK(t, strchr(msg, '\n') == NULL);
	stk_btf_source_release(&src);

	/* Built without BTF_ARCHIVE: the message says that instead. */
	struct stk_btf_env bare = { .release = "6.1.0-50-cloud-amd64", .machine = "x86_64", .sysroot = root };
	unsigned char *empty;
	size_t esize, unique;
	CHECK(t, stk_btf_pack(NULL, 0, &empty, &esize, &unique, msg, sizeof(msg)) == 0);
	bare.archive = empty;
	bare.archive_size = esize;
	CHECK(t, stk_btf_resolve(NULL, &bare, &src) == 0 && src.kind == STK_BTF_NONE);
	stk_btf_missing(&src, msg, sizeof(msg));
	CHECK(t, strstr(msg, "built without an embedded BTF archive") != NULL);
	CHECK(t, strstr(msg, "looked up debian/12/x86_64/6.1.0-50-cloud-amd64") != NULL);
	free(empty);
	remove_tree(root);
	free(archive);
}

/* --btf FILE: raw BTF or an ELF with .BTF passes; text, a FIFO, a lying header or a missing file do not. */
static void checks_an_explicit_file(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], why[256];
	unsigned char raw[sizeof(raw_btf)];
	FILE *f;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/ok.btf", dir);
	CHECK(t, write_raw_btf(path) == 0);
	memcpy(raw, raw_btf, sizeof(raw));
	CHECK(t, stk_btf_file_check(path, why, sizeof(why)) == 0);
	raw[20] = 2; /* the string section now runs past the end */
	f = fopen(path, "w");
	CHECK(t, f && fwrite(raw, 1, sizeof(raw), f) == sizeof(raw) && fclose(f) == 0);
	CHECK(t, stk_btf_file_check(path, why, sizeof(why)) == -1 && strstr(why, "not a BTF file"));
	touch_with(dir, "/text.btf", "hello, this is not BTF at all\n");
	snprintf(path, sizeof(path), "%s/text.btf", dir);
	CHECK(t, stk_btf_file_check(path, why, sizeof(why)) == -1 && strstr(why, "not a BTF file"));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(t, mkfifo(path, 0600) == 0);
	CHECK(t, stk_btf_file_check(path, why, sizeof(why)) == -1 && strstr(why, "not readable: not a regular file"));
	CHECK(t, stk_btf_file_check("/nonexistent.btf", why, sizeof(why)) == -1 &&
		     strstr(why, "not readable: No such file"));
	/* An ELF file without .BTF (a fixture binary built by gcc). */
	CHECK(t, stk_btf_file_check("/proc/self/exe", why, sizeof(why)) == -1);
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		CHECK(t, stk_btf_file_check("/sys/kernel/btf/vmlinux", why, sizeof(why)) == 0);
	remove_tree(dir);
}

const struct test_case btf_source_tests[] = {
	{ "btf_source_file_check", checks_an_explicit_file },
	{ "btf_source_order", follows_the_documented_order },
	{ "btf_source_embedded", falls_back_to_the_embedded_archive },
	{ "btf_source_no_match", names_the_key_when_nothing_matches },
	{ NULL, NULL },
};
