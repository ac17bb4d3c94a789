/*
 * Where the kernel's BTF comes from, in the order DESIGN.md fixes:
 * --btf FILE, then /sys/kernel/btf/vmlinux, then libbpf's standard vmlinux
 * locations, then the BTF archive embedded in stk.
 */
#ifndef STK_BTF_SOURCE_H
#define STK_BTF_SOURCE_H

#include <stddef.h>

enum stk_btf_kind {
	STK_BTF_NONE,
	STK_BTF_FILE,     /* --btf FILE */
	STK_BTF_SYSFS,    /* /sys/kernel/btf/vmlinux */
	STK_BTF_PATH,     /* a vmlinux in one of libbpf's standard locations */
	STK_BTF_EMBEDDED, /* the archive linked into stk */
};

struct stk_btf_source {
	enum stk_btf_kind kind;
	char path[4096]; /* file to hand libbpf; empty for NONE */
};

/*
 * Resolves the BTF source. sysroot prefixes every probed path ("" in
 * production, a fixture directory in tests). Returns 0, or -1 when an
 * explicit file does not exist (with *src describing it).
 */
int stk_btf_resolve(const char *explicit_file, const char *release, const char *sysroot,
		    struct stk_btf_source *src);
const char *stk_btf_kind_name(enum stk_btf_kind kind);
/* Path to pass as libbpf's btf_custom_path: NULL when libbpf finds it itself. */
const char *stk_btf_custom_path(const struct stk_btf_source *src);

#endif
