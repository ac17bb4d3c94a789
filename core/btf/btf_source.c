#include "core/btf/btf_source.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/btf/btf_archive.h"
#include "core/btf/btf_file_check.h"
#include "core/base/os_release.h"

/* The locations libbpf's btf__load_vmlinux_btf() searches after sysfs. */
static const char *const standard_vmlinux_paths[] = {
	"/boot/vmlinux-%1$s",
	"/lib/modules/%1$s/vmlinux-%1$s",
	"/lib/modules/%1$s/build/vmlinux",
	"/usr/lib/modules/%1$s/kernel/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%1$s",
	"/usr/lib/debug/boot/vmlinux-%1$s.debug",
	"/usr/lib/debug/lib/modules/%1$s/vmlinux",
};

const char *stk_btf_kind_name(enum stk_btf_kind kind)
{
	switch (kind) {
	case STK_BTF_FILE: return "file";
	case STK_BTF_SYSFS: return "sysfs";
	case STK_BTF_PATH: return "path";
	case STK_BTF_EMBEDDED: return "embedded";
	case STK_BTF_NONE: break;
	}
	return "none";
}

/* Where libbpf would find the running kernel's own BTF: 1 sysfs, 2 a path, 0 nowhere. */
static int find_kernel_btf(const struct stk_btf_env *env, char *path, size_t len)
{
	char rel_path[4096];

	snprintf(path, len, "%s/sys/kernel/btf/vmlinux", env->sysroot);
	if (access(path, R_OK) == 0)
		return 1;
	for (size_t i = 0; i < sizeof(standard_vmlinux_paths) / sizeof(standard_vmlinux_paths[0]); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(rel_path, sizeof(rel_path), standard_vmlinux_paths[i], env->release);
#pragma GCC diagnostic pop
		snprintf(path, len, "%s%s", env->sysroot, rel_path);
		if (access(path, R_OK) == 0)
			return 2;
	}
	path[0] = '\0';
	return 0;
}

/* An anonymous file: a memfd, else an unnamed O_TMPFILE. Nothing is left behind either way. */
static int anonymous_file(void)
{
	static const char *const dirs[] = { "/dev/shm", "/tmp" };
	int fd = memfd_create("stk-btf", MFD_CLOEXEC);

	for (size_t i = 0; fd < 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static const char *match_text(enum stk_btf_match m)
{
	switch (m) {
	case STK_BTF_MATCH_EXACT: return "os-release ID, VERSION_ID, arch and kernel release match";
	case STK_BTF_MATCH_ID: return "os-release ID, arch and kernel release match; VERSION_ID differs";
	default: return "";
	}
}

/* The embedded archive's entry for this kernel, into a memfd. 0, or -1 with src->detail set. */
static int use_embedded(const struct stk_btf_env *env, struct stk_btf_source *src)
{
	struct stk_os_release os;
	struct stk_btf_archive a;
	struct stk_btf_key want = { 0 }, got;
	unsigned char *btf;
	size_t len;
	uint32_t idx;
	char err[256];

	stk_os_release_read(env->sysroot, &os);
	snprintf(want.id, sizeof(want.id), "%s", os.id);
	snprintf(want.version_id, sizeof(want.version_id), "%s", os.version_id);
	snprintf(want.arch, sizeof(want.arch), "%s", stk_btf_arch_name(env->machine));
	snprintf(want.release, sizeof(want.release), "%s", env->release);
	stk_btf_key_format(&want, src->key, sizeof(src->key));

	if (!env->archive || stk_btf_archive_parse(env->archive, env->archive_size, &a, err, sizeof(err))) {
		snprintf(src->detail, sizeof(src->detail), "%s", env->archive ? err : "no embedded archive");
		return -1;
	}
	if (a.count == 0) {
		snprintf(src->detail, sizeof(src->detail), "stk was built without an embedded BTF archive");
		return -1;
	}
	enum stk_btf_match m = stk_btf_archive_find(&a, &want, &idx);
	if (m == STK_BTF_MATCH_NONE || m == STK_BTF_MATCH_AMBIGUOUS) {
		snprintf(src->detail, sizeof(src->detail), "the embedded archive (%u kernel%s) has %s", a.count,
			 a.count == 1 ? "" : "s", m == STK_BTF_MATCH_NONE ? "no such entry" : "several different BTFs for it");
		return -1;
	}
	if (stk_btf_archive_extract(&a, idx, &btf, &len, err, sizeof(err))) {
		snprintf(src->detail, sizeof(src->detail), "%s", err);
		return -1;
	}
	int fd = anonymous_file();
	if (fd < 0 || write_all(fd, btf, len)) {
		snprintf(src->detail, sizeof(src->detail), "no anonymous file (memfd, O_TMPFILE) for the embedded BTF");
		if (fd >= 0)
			close(fd);
		free(btf);
		return -1;
	}
	free(btf);
	stk_btf_archive_key(&a, idx, &got, NULL);
	stk_btf_key_format(&got, src->entry, sizeof(src->entry));
	snprintf(src->detail, sizeof(src->detail), "%s", match_text(m));
	snprintf(src->path, sizeof(src->path), "/proc/self/fd/%d", fd);
	src->fd = fd;
	src->kind = STK_BTF_EMBEDDED;
	return 0;
}

int stk_btf_resolve(const char *explicit_file, const struct stk_btf_env *env, struct stk_btf_source *src)
{
	char found[4096];
	int where = find_kernel_btf(env, found, sizeof(found));

	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->kernel_btf = where != 0;
	if (explicit_file) {
		src->kind = STK_BTF_FILE;
		snprintf(src->path, sizeof(src->path), "%s", explicit_file);
		return stk_btf_file_check(explicit_file, src->detail, sizeof(src->detail));
	}
	if (where) {
		src->kind = where == 1 ? STK_BTF_SYSFS : STK_BTF_PATH;
		memcpy(src->path, found, sizeof(src->path));
		return 0;
	}
	if (use_embedded(env, src))
		src->kind = STK_BTF_NONE;
	return 0;
}

void stk_btf_source_release(struct stk_btf_source *src)
{
	if (src->kind == STK_BTF_EMBEDDED && src->fd >= 0) {
		close(src->fd);
		src->fd = -1;
	}
}

const char *stk_btf_custom_path(const struct stk_btf_source *src)
{
	if (src->kind == STK_BTF_FILE || src->kind == STK_BTF_PATH || src->kind == STK_BTF_EMBEDDED)
		return src->path;
	return NULL;
}

void stk_btf_describe(const struct stk_btf_source *src, char *buf, size_t len)
{
	switch (src->kind) {
	case STK_BTF_EMBEDDED:
		snprintf(buf, len, "embedded %s (%s; CO-RE types only: fentry, tp_btf and iterators need the "
			 "kernel's own BTF)", src->entry, src->detail);
		return;
	case STK_BTF_NONE:
		snprintf(buf, len, "none (looked up %s: %s)", src->key, src->detail);
		return;
	default:
		snprintf(buf, len, "%s %s", stk_btf_kind_name(src->kind), src->path);
		return;
	}
}

void stk_btf_missing(const struct stk_btf_source *src, char *buf, size_t len)
{
	snprintf(buf, len, "no BTF for this kernel (looked up %s): no /sys/kernel/btf/vmlinux, no vmlinux in "
		 "libbpf's paths, and %s; pass --btf FILE with this kernel's BTF (e.g. from btfhub-archive)",
		 src->key, src->detail);
}
