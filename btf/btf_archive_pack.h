/*
 * Writing the BTF archive that core/btf/btf_archive.c reads (format in
 * btf/README.md). Used at build time by btf/pack.c and by the unit tests.
 */
#ifndef STK_BTF_ARCHIVE_PACK_H
#define STK_BTF_ARCHIVE_PACK_H

#include <stddef.h>

#include "core/btf/btf_archive.h"

struct stk_btf_pack_entry {
	struct stk_btf_key key;
	const void *btf; /* minimized BTF bytes */
	size_t size;
};

/*
 * Packs the entries into a new malloc'd archive in *out: an index in the
 * given order, identical BTFs stored once, all data in one zlib stream.
 * *unique_size receives the inflated data size. 0, or -1 with err.
 */
int stk_btf_pack(const struct stk_btf_pack_entry *entries, size_t n, unsigned char **out, size_t *out_size,
		 size_t *unique_size, char *err, size_t errlen);

#endif
