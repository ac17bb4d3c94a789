#include "btf/btf_archive_pack.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/base/grow.h"

struct bytes {
	unsigned char *p;
	size_t n, cap;
};

static int append(struct bytes *b, const void *data, size_t len)
{
	if (stk_grow((void **)&b->p, &b->cap, b->n + len, 1))
		return -1;
	memcpy(b->p + b->n, data, len);
	b->n += len;
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Offset of s in the string table, adding it once. UINT32_MAX on failure. */
static uint32_t intern(struct bytes *strings, const char *s)
{
	size_t len = strlen(s) + 1;

	for (size_t off = 0; off < strings->n; off += strlen((char *)strings->p + off) + 1)
		if (strcmp((char *)strings->p + off, s) == 0)
			return (uint32_t)off;
	size_t off = strings->n;
	return append(strings, s, len) ? UINT32_MAX : (uint32_t)off;
}

/* Offset of the BTF in the data, stored once per distinct content. */
static uint32_t store(struct bytes *data, const struct stk_btf_pack_entry *e, const size_t *offsets, size_t i,
		      const struct stk_btf_pack_entry *entries)
{
	for (size_t j = 0; j < i; j++)
		if (entries[j].size == e->size && memcmp(entries[j].btf, e->btf, e->size) == 0)
			return (uint32_t)offsets[j];
	size_t off = data->n;
	return append(data, e->btf, e->size) ? UINT32_MAX : (uint32_t)off;
}

int stk_btf_pack(const struct stk_btf_pack_entry *entries, size_t n, unsigned char **out, size_t *out_size,
		 size_t *unique_size, char *err, size_t errlen)
{
	struct bytes index = { 0 }, strings = { 0 }, data = { 0 };
	size_t *offsets = calloc(n ? n : 1, sizeof(*offsets));
	unsigned char *archive = NULL, rec[STK_BTF_ARCHIVE_ENTRY_SIZE];
	int ret = -1;

	*out = NULL;
	if (!offsets)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct stk_btf_pack_entry *e = &entries[i];
		uint32_t off = store(&data, e, offsets, i, entries);
		uint32_t s[4] = { intern(&strings, e->key.id), intern(&strings, e->key.version_id),
				  intern(&strings, e->key.arch), intern(&strings, e->key.release) };
		if (off == UINT32_MAX || s[0] == UINT32_MAX || s[1] == UINT32_MAX || s[2] == UINT32_MAX ||
		    s[3] == UINT32_MAX)
			goto oom;
		if (e->size == 0 || e->size > UINT32_MAX) {
			snprintf(err, errlen, "entry %zu: BTF of %zu bytes cannot be stored", i, e->size);
			goto out;
		}
		offsets[i] = off;
		for (int f = 0; f < 4; f++)
			put32(rec + 4 * f, s[f]);
		put32(rec + 16, off);
		put32(rec + 20, (uint32_t)e->size);
		put32(rec + 24, (uint32_t)crc32(0L, e->btf, (uInt)e->size));
		if (append(&index, rec, sizeof(rec)))
			goto oom;
	}

	uLongf zsize = compressBound((uLong)data.n);
	size_t head = STK_BTF_ARCHIVE_HEADER_SIZE + index.n + strings.n;
	archive = calloc(1, head + zsize);
	if (!archive)
		goto oom;
	if (data.n && compress2(archive + head, &zsize, data.p, (uLong)data.n, Z_BEST_COMPRESSION) != Z_OK) {
		snprintf(err, errlen, "zlib could not compress %zu bytes", data.n);
		goto out;
	}
	if (!data.n)
		zsize = 0;
	memcpy(archive, STK_BTF_ARCHIVE_MAGIC, 8);
	put32(archive + 8, (uint32_t)n);
	put32(archive + 12, (uint32_t)strings.n);
	put32(archive + 16, (uint32_t)data.n);
	put32(archive + 20, (uint32_t)zsize);
	if (index.n)
		memcpy(archive + STK_BTF_ARCHIVE_HEADER_SIZE, index.p, index.n);
	if (strings.n)
		memcpy(archive + STK_BTF_ARCHIVE_HEADER_SIZE + index.n, strings.p, strings.n);
	*out = archive;
	*out_size = head + zsize;
	*unique_size = data.n;
	archive = NULL;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory packing the BTF archive");
out:
	free(archive);
	free(offsets);
	free(index.p);
	free(strings.p);
	free(data.p);
	return ret;
}
