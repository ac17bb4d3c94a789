#include "btf_source.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int stk_btf_resolve(const char *explicit_file, const char *release, const char *sysroot,
		    struct stk_btf_source *src)
{
	char rel_path[4096];

	memset(src, 0, sizeof(*src));
	if (explicit_file) {
		src->kind = STK_BTF_FILE;
		snprintf(src->path, sizeof(src->path), "%s", explicit_file);
		return access(explicit_file, R_OK) == 0 ? 0 : -1;
	}
	snprintf(src->path, sizeof(src->path), "%s/sys/kernel/btf/vmlinux", sysroot);
	if (access(src->path, R_OK) == 0) {
		src->kind = STK_BTF_SYSFS;
		return 0;
	}
	for (size_t i = 0; i < sizeof(standard_vmlinux_paths) / sizeof(standard_vmlinux_paths[0]); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(rel_path, sizeof(rel_path), standard_vmlinux_paths[i], release);
#pragma GCC diagnostic pop
		snprintf(src->path, sizeof(src->path), "%s%s", sysroot, rel_path);
		if (access(src->path, R_OK) == 0) {
			src->kind = STK_BTF_PATH;
			return 0;
		}
	}
	/* The embedded archive (btf/) is consulted here once stk is built with one. */
	src->kind = STK_BTF_NONE;
	src->path[0] = '\0';
	return 0;
}

const char *stk_btf_custom_path(const struct stk_btf_source *src)
{
	if (src->kind == STK_BTF_FILE || src->kind == STK_BTF_PATH || src->kind == STK_BTF_EMBEDDED)
		return src->path;
	return NULL;
}
