/*
 * The embedded BTF archive (format in btf/README.md): an index of kernels,
 * keyed by os-release ID, VERSION_ID, arch and `uname -r`, and one zlib
 * stream holding each distinct minimized BTF once. Reading only: the index
 * is used in place, the data is inflated when an entry is chosen.
 */
#ifndef STK_BTF_ARCHIVE_H
#define STK_BTF_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#define STK_BTF_ARCHIVE_MAGIC "STKBTFA\1"
#define STK_BTF_ARCHIVE_HEADER_SIZE 32
#define STK_BTF_ARCHIVE_ENTRY_SIZE 28
/* Largest inflated data an archive may claim (every BTF of it, before extraction). */
#define STK_BTF_ARCHIVE_MAX_DATA (512u << 20)

struct stk_btf_key {
	char id[64];         /* os-release ID, e.g. "debian" */
	char version_id[64]; /* os-release VERSION_ID, unquoted; "" when it has none */
	char arch[32];       /* btfhub's name: x86_64, arm64, ... */
	char release[256];   /* uname -r */
};

/* A parsed (validated) archive; points into the caller's bytes. */
struct stk_btf_archive {
	const unsigned char *base;
	uint32_t count;
	const unsigned char *entries;
	const char *strings;
	uint32_t strings_size;
	const unsigned char *data; /* zlib stream */
	uint32_t data_zsize, data_size;
};

enum stk_btf_match {
	STK_BTF_MATCH_NONE,
	STK_BTF_MATCH_EXACT,     /* ID, VERSION_ID, arch and release */
	STK_BTF_MATCH_ID,        /* ID, arch and release (no or another VERSION_ID) */
	STK_BTF_MATCH_AMBIGUOUS, /* several entries with different BTF: none chosen */
};

/* btfhub's arch name for a `uname -m` machine: aarch64 -> arm64, others as is. */
const char *stk_btf_arch_name(const char *machine);

/* Checks the header and that every table lies inside size. 0, or -1 with err. */
int stk_btf_archive_parse(const void *bytes, size_t size, struct stk_btf_archive *a, char *err, size_t errlen);
/* Entry i's key and minimized BTF size. 0, or -1 for a bad index. */
int stk_btf_archive_key(const struct stk_btf_archive *a, uint32_t i, struct stk_btf_key *key, uint32_t *size);
/*
 * The best entry for want: exact, else same ID + arch + release (a host
 * running another suite's kernel, or one without VERSION_ID), which counts
 * only when every such entry holds the same BTF. Never across IDs: a bare
 * release string such as "5.15.0" does not identify a build. *index is set
 * for EXACT and ID.
 */
enum stk_btf_match stk_btf_archive_find(const struct stk_btf_archive *a, const struct stk_btf_key *want,
					uint32_t *index);
/* Inflates entry i's BTF into a new malloc'd buffer (checked by CRC). 0, or -1 with err. */
int stk_btf_archive_extract(const struct stk_btf_archive *a, uint32_t i, unsigned char **out, size_t *len,
			    char *err, size_t errlen);
/* "debian/12/x86_64/6.1.0-50-cloud-amd64" (btfhub path without suffix; "-" for no VERSION_ID). */
void stk_btf_key_format(const struct stk_btf_key *key, char *buf, size_t len);

#endif
