/*
 * Build-time packer of the embedded BTF archive (host tool, not in stk).
 *   stk-btf-pack MANIFEST OUT
 * MANIFEST: one kernel a line, tab-separated:
 *   ID  VERSION_ID  ARCH  RELEASE  MINIMIZED_BTF_FILE  RAW_BTF_SIZE
 * (btf/build-archive.sh writes it). An empty manifest packs an empty archive.
 * Prints the size of each kernel's BTF raw, minimized and compressed alone,
 * and the totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "btf/btf_archive_pack.h"

struct kernel {
	struct stk_btf_pack_entry e;
	unsigned long long raw_size;
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

static unsigned long zlib_alone(const void *p, size_t n)
{
	uLongf z = compressBound((uLong)n);
	unsigned char *buf = malloc(z);
	unsigned long ret = 0;

	if (buf && compress2(buf, &z, p, (uLong)n, Z_BEST_COMPRESSION) == Z_OK)
		ret = z;
	free(buf);
	return ret;
}

static int read_manifest(FILE *f, struct kernel **out, size_t *n)
{
	char line[8192];
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *field[6], *p = line;
		int nf = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		/* strtok would merge the empty VERSION_ID field: split by hand. */
		for (; nf < 6; nf++) {
			field[nf] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf != 5) {
			fprintf(stderr, "stk-btf-pack: bad manifest line (want 6 tab-separated fields)\n");
			return -1;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			struct kernel *k = realloc(*out, cap * sizeof(**out));
			if (!k)
				return -1;
			*out = k;
		}
		struct kernel *k = &(*out)[*n];
		memset(k, 0, sizeof(*k));
		snprintf(k->e.key.id, sizeof(k->e.key.id), "%s", field[0]);
		snprintf(k->e.key.version_id, sizeof(k->e.key.version_id), "%s", field[1]);
		snprintf(k->e.key.arch, sizeof(k->e.key.arch), "%s", stk_btf_arch_name(field[2]));
		snprintf(k->e.key.release, sizeof(k->e.key.release), "%s", field[3]);
		k->raw_size = strtoull(field[5], NULL, 10);
		k->e.btf = slurp(field[4], &k->e.size);
		if (!k->e.btf) {
			fprintf(stderr, "stk-btf-pack: %s: %s\n", field[4], errno ? strerror(errno) : "empty");
			return -1;
		}
		(*n)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct kernel *k = NULL;
	size_t n = 0, size = 0, unique = 0;
	unsigned char *archive = NULL;
	unsigned long long raw_total = 0, min_total = 0;
	char err[256], name[512];
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: stk-btf-pack MANIFEST OUT\n");
		return 2;
	}
	FILE *m = fopen(argv[1], "r");
	if (!m) {
		fprintf(stderr, "stk-btf-pack: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int bad = read_manifest(m, &k, &n);
	fclose(m);
	if (bad)
		goto out;
	struct stk_btf_pack_entry *entries = calloc(n ? n : 1, sizeof(*entries));
	if (!entries)
		goto out;
	for (size_t i = 0; i < n; i++)
		entries[i] = k[i].e;
	if (stk_btf_pack(entries, n, &archive, &size, &unique, err, sizeof(err))) {
		fprintf(stderr, "stk-btf-pack: %s\n", err);
		free(entries);
		goto out;
	}
	free(entries);
	FILE *o = fopen(argv[2], "wb");
	if (!o || fwrite(archive, 1, size, o) != size || fclose(o)) {
		fprintf(stderr, "stk-btf-pack: writing %s failed\n", argv[2]);
		goto out;
	}
	if (n)
		printf("  %-56s %10s %10s %10s\n", "kernel (ID/VERSION_ID/arch/release)", "raw BTF", "minimized",
		       "zlib alone");
	for (size_t i = 0; i < n; i++) {
		stk_btf_key_format(&k[i].e.key, name, sizeof(name));
		printf("  %-56s %10llu %10zu %10lu\n", name, k[i].raw_size, k[i].e.size,
		       zlib_alone(k[i].e.btf, k[i].e.size));
		raw_total += k[i].raw_size;
		min_total += k[i].e.size;
	}
	printf("  total: %zu kernels, raw BTF %llu bytes, minimized %llu (%zu distinct bytes), archive %zu bytes\n",
	       n, raw_total, min_total, unique, size);
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free((void *)k[i].e.btf);
	free(k);
	free(archive);
	return ret;
}
