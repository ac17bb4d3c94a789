#include "core/btf/btf_archive.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Every number in the archive is a little-endian u32. */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum { E_ID, E_VERSION, E_ARCH, E_RELEASE, E_DATA_OFF, E_DATA_SIZE, E_CRC };

static uint32_t entry_field(const struct stk_btf_archive *a, uint32_t i, int field)
{
	return le32(a->entries + (size_t)i * STK_BTF_ARCHIVE_ENTRY_SIZE + (size_t)field * 4);
}

const char *stk_btf_arch_name(const char *machine)
{
	if (strcmp(machine, "aarch64") == 0)
		return "arm64";
	return machine;
}

int stk_btf_archive_parse(const void *bytes, size_t size, struct stk_btf_archive *a, char *err, size_t errlen)
{
	const unsigned char *p = bytes;

	memset(a, 0, sizeof(*a));
	if (size < STK_BTF_ARCHIVE_HEADER_SIZE || memcmp(p, STK_BTF_ARCHIVE_MAGIC, 8) != 0) {
		snprintf(err, errlen, "not a stk BTF archive (bad magic or %zu bytes only)", size);
		return -1;
	}
	a->base = p;
	a->count = le32(p + 8);
	a->strings_size = le32(p + 12);
	a->data_size = le32(p + 16);
	a->data_zsize = le32(p + 20);
	/* 64-bit sums: no 32-bit overflow can sneak a table past the end. */
	uint64_t entries_end = STK_BTF_ARCHIVE_HEADER_SIZE + (uint64_t)a->count * STK_BTF_ARCHIVE_ENTRY_SIZE;
	uint64_t end = entries_end + a->strings_size + a->data_zsize;
	if (end > size) {
		snprintf(err, errlen, "truncated BTF archive: tables need %llu bytes, have %zu",
			 (unsigned long long)end, size);
		return -1;
	}
	/*
	 * The inflated size is allocated later: bound it before anything trusts
	 * it (zlib cannot expand more than ~1032:1).
	 */
	if (a->data_size > STK_BTF_ARCHIVE_MAX_DATA || a->data_size > (uint64_t)a->data_zsize * 1032 + 64) {
		snprintf(err, errlen, "corrupt BTF archive: %u bytes of data claimed from %u compressed",
			 a->data_size, a->data_zsize);
		return -1;
	}
	a->entries = p + STK_BTF_ARCHIVE_HEADER_SIZE;
	a->strings = (const char *)p + entries_end;
	a->data = p + entries_end + a->strings_size;
	if (a->count && (a->strings_size == 0 || a->strings[a->strings_size - 1] != '\0')) {
		snprintf(err, errlen, "corrupt BTF archive: string table not NUL-terminated");
		return -1;
	}
	for (uint32_t i = 0; i < a->count; i++) {
		for (int f = E_ID; f <= E_RELEASE; f++)
			if (entry_field(a, i, f) >= a->strings_size) {
				snprintf(err, errlen, "corrupt BTF archive: entry %u names a string outside the table", i);
				return -1;
			}
		if ((uint64_t)entry_field(a, i, E_DATA_OFF) + entry_field(a, i, E_DATA_SIZE) > a->data_size) {
			snprintf(err, errlen, "corrupt BTF archive: entry %u lies outside the data", i);
			return -1;
		}
	}
	return 0;
}

static const char *entry_string(const struct stk_btf_archive *a, uint32_t i, int field)
{
	return a->strings + entry_field(a, i, field);
}

int stk_btf_archive_key(const struct stk_btf_archive *a, uint32_t i, struct stk_btf_key *key, uint32_t *size)
{
	if (i >= a->count)
		return -1;
	snprintf(key->id, sizeof(key->id), "%s", entry_string(a, i, E_ID));
	snprintf(key->version_id, sizeof(key->version_id), "%s", entry_string(a, i, E_VERSION));
	snprintf(key->arch, sizeof(key->arch), "%s", entry_string(a, i, E_ARCH));
	snprintf(key->release, sizeof(key->release), "%s", entry_string(a, i, E_RELEASE));
	if (size)
		*size = entry_field(a, i, E_DATA_SIZE);
	return 0;
}

/* Same BTF bytes: the packer stores identical BTFs once, so same offset and size. */
static bool same_data(const struct stk_btf_archive *a, uint32_t i, uint32_t j)
{
	return entry_field(a, i, E_DATA_OFF) == entry_field(a, j, E_DATA_OFF) &&
	       entry_field(a, i, E_DATA_SIZE) == entry_field(a, j, E_DATA_SIZE);
}

static bool matches(const struct stk_btf_archive *a, uint32_t i, const struct stk_btf_key *want,
		    enum stk_btf_match level)
{
	if (strcmp(entry_string(a, i, E_RELEASE), want->release) != 0 ||
	    strcmp(entry_string(a, i, E_ARCH), stk_btf_arch_name(want->arch)) != 0)
		return false;
	if (strcmp(entry_string(a, i, E_ID), want->id) != 0)
		return false;
	return level == STK_BTF_MATCH_ID || strcmp(entry_string(a, i, E_VERSION), want->version_id) == 0;
}

enum stk_btf_match stk_btf_archive_find(const struct stk_btf_archive *a, const struct stk_btf_key *want,
					uint32_t *index)
{
	static const enum stk_btf_match levels[] = { STK_BTF_MATCH_EXACT, STK_BTF_MATCH_ID };
	bool ambiguous = false;

	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		bool found = false, differ = false;
		uint32_t first = 0;

		for (uint32_t i = 0; i < a->count; i++) {
			if (!matches(a, i, want, levels[l]))
				continue;
			if (!found)
				first = i;
			else if (!same_data(a, first, i))
				differ = true;
			found = true;
		}
		if (found && !differ) {
			*index = first;
			return levels[l];
		}
		ambiguous = ambiguous || differ;
	}
	return ambiguous ? STK_BTF_MATCH_AMBIGUOUS : STK_BTF_MATCH_NONE;
}

int stk_btf_archive_extract(const struct stk_btf_archive *a, uint32_t i, unsigned char **out, size_t *len,
			    char *err, size_t errlen)
{
	z_stream zs = { 0 };
	unsigned char *buf;
	int zret;

	*out = NULL;
	if (i >= a->count || entry_field(a, i, E_DATA_SIZE) == 0) {
		snprintf(err, errlen, "BTF archive entry %u does not exist or is empty", i);
		return -1;
	}
	uint32_t off = entry_field(a, i, E_DATA_OFF), size = entry_field(a, i, E_DATA_SIZE);
	size_t need = (size_t)off + size; /* inflate only up to the end of this entry */
	buf = malloc(need);
	if (!buf || inflateInit(&zs) != Z_OK) {
		free(buf);
		snprintf(err, errlen, "out of memory inflating the BTF archive");
		return -1;
	}
	zs.next_in = (unsigned char *)a->data;
	zs.avail_in = a->data_zsize;
	zs.next_out = buf;
	zs.avail_out = (uInt)need;
	do
		zret = inflate(&zs, Z_NO_FLUSH);
	while (zret == Z_OK && zs.avail_out > 0);
	inflateEnd(&zs);
	if (zs.avail_out > 0 || (zret != Z_OK && zret != Z_STREAM_END)) {
		snprintf(err, errlen, "BTF archive data does not inflate (zlib: %s)", zs.msg ? zs.msg : zError(zret));
		free(buf);
		return -1;
	}
	memmove(buf, buf + off, size);
	if (crc32(0L, buf, size) != entry_field(a, i, E_CRC)) {
		snprintf(err, errlen, "BTF archive entry %u fails its CRC check", i);
		free(buf);
		return -1;
	}
	*out = buf;
	*len = size;
	return 0;
}

void stk_btf_key_format(const struct stk_btf_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s/%s", key->id[0] ? key->id : "-", key->version_id[0] ? key->version_id : "-",
		 key->arch, key->release);
}
