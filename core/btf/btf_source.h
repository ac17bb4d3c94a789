/*
 * Where the kernel's BTF comes from, in this order (ARCHITECTURE.md):
 * --btf FILE, then /sys/kernel/btf/vmlinux, then libbpf's standard vmlinux
 * locations, then the BTF archive embedded in stk (keyed by os-release ID,
 * VERSION_ID, arch and `uname -r`). An embedded BTF is inflated into a
 * memfd, so nothing is left on disk.
 */
#ifndef STK_BTF_SOURCE_H
#define STK_BTF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

enum stk_btf_kind {
	STK_BTF_NONE,
	STK_BTF_FILE,     /* --btf FILE */
	STK_BTF_SYSFS,    /* /sys/kernel/btf/vmlinux */
	STK_BTF_PATH,     /* a vmlinux in one of libbpf's standard locations */
	STK_BTF_EMBEDDED, /* the archive linked into stk */
};

/* What the resolution looks at; tests point it at fixtures. */
struct stk_btf_env {
	const char *release;   /* uname -r */
	const char *machine;   /* uname -m */
	const char *sysroot;   /* prefix of every probed path: "" in production */
	const void *archive;   /* the embedded archive, NULL when none */
	size_t archive_size;
};

struct stk_btf_source {
	enum stk_btf_kind kind;
	char path[4096]; /* file to hand libbpf (/proc/self/fd/N when embedded); "" for NONE */
	/*
	 * libbpf itself finds the running kernel's BTF (sysfs or a standard
	 * vmlinux). fentry, tp_btf and iterators need it whatever the source:
	 * their attach targets are ids in the kernel's own BTF, which neither
	 * --btf nor the embedded types replace (libbpf 1.5 uses btf_custom_path
	 * for CO-RE relocations only).
	 */
	bool kernel_btf;
	int fd;           /* EMBEDDED: the memfd behind path, owned; see stk_btf_source_release() */
	char key[400];    /* EMBEDDED/NONE: the archive key looked up, "ID/VERSION_ID/arch/release" */
	char entry[400];  /* EMBEDDED: the archive entry used */
	char detail[256]; /* EMBEDDED: how it matched; NONE: why the archive did not help; FILE: why it failed */
};

/*
 * Resolves the BTF source. Returns 0, or -1 when an explicit file is not
 * readable BTF (src->detail says why). Call stk_btf_source_release() after the
 * BPF object is loaded.
 */
int stk_btf_resolve(const char *explicit_file, const struct stk_btf_env *env, struct stk_btf_source *src);
/* Closes the embedded BTF's memfd. Safe on a zeroed or already released source. */
void stk_btf_source_release(struct stk_btf_source *src);
const char *stk_btf_kind_name(enum stk_btf_kind kind);
/* Path to pass as libbpf's btf_custom_path: NULL when libbpf finds it itself. */
const char *stk_btf_custom_path(const struct stk_btf_source *src);
/* One line for `stk info` after "btf: ", e.g. "embedded debian/12/x86_64/6.1.0-50-cloud-amd64 (...)". */
void stk_btf_describe(const struct stk_btf_source *src, char *buf, size_t len);
/* For a NONE source: why there is no BTF, naming the key looked up and --btf FILE. */
void stk_btf_missing(const struct stk_btf_source *src, char *buf, size_t len);

#endif
