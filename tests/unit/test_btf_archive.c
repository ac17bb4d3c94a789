#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/btf/btf_archive.h"
#include "btf/btf_archive_pack.h"

/* Three kernels; two share the same BTF bytes (stored once). */
static const char btf_a[] = "pretend minimized BTF of a 5.10 kernel";
static const char btf_b[] = "pretend minimized BTF of a 6.1 kernel, a little longer";

static struct stk_btf_pack_entry entry(const char *id, const char *ver, const char *arch, const char *rel,
				       const char *btf)
{
	struct stk_btf_pack_entry e = { .btf = btf, .size = strlen(btf) };

	snprintf(e.key.id, sizeof(e.key.id), "%s", id);
	snprintf(e.key.version_id, sizeof(e.key.version_id), "%s", ver);
	snprintf(e.key.arch, sizeof(e.key.arch), "%s", arch);
	snprintf(e.key.release, sizeof(e.key.release), "%s", rel);
	return e;
}

static struct stk_btf_key key(const char *id, const char *ver, const char *arch, const char *rel)
{
	return entry(id, ver, arch, rel, "x").key;
}

static int pack_fixture(unsigned char **out, size_t *size, size_t *unique)
{
	struct stk_btf_pack_entry e[] = {
		entry("debian", "11", "x86_64", "5.10.0-32-cloud-amd64", btf_a),
		entry("debian", "12", "x86_64", "6.1.0-50-cloud-amd64", btf_b),
		entry("debian", "12", "arm64", "6.1.0-50-cloud-arm64", btf_b),
		entry("debian", "", "x86_64", "7.2.13+deb14-cloud-amd64", btf_a),
	};
	char err[128];

	return stk_btf_pack(e, sizeof(e) / sizeof(e[0]), out, size, unique, err, sizeof(err));
}

static void extracts(struct test_ctx *t, const struct stk_btf_archive *a, uint32_t i, const char *want)
{
	unsigned char *btf = NULL;
	size_t len = 0;
	char err[128];

	CHECK(t, stk_btf_archive_extract(a, i, &btf, &len, err, sizeof(err)) == 0);
	CHECK(t, btf && len == strlen(want) && memcmp(btf, want, len) == 0);
	free(btf);
}

static void packs_and_finds(struct test_ctx *t)
{
	unsigned char *bytes;
	size_t size, unique;
	struct stk_btf_archive a;
	struct stk_btf_key k;
	uint32_t i = 99, sz;
	char err[128], name[512];

	CHECK(t, pack_fixture(&bytes, &size, &unique) == 0);
	CHECK(t, unique == strlen(btf_a) + strlen(btf_b)); /* duplicates stored once */
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == 0);
	CHECK(t, a.count == 4);
	CHECK(t, stk_btf_archive_key(&a, 1, &k, &sz) == 0 && sz == strlen(btf_b));
	stk_btf_key_format(&k, name, sizeof(name));
	CHECK_STR(t, name, "debian/12/x86_64/6.1.0-50-cloud-amd64");
	CHECK(t, stk_btf_archive_key(&a, 4, &k, &sz) == -1);

	/* Exact key; VERSION_ID as os-release gives it (quotes already removed). */
	k = key("debian", "12", "x86_64", "6.1.0-50-cloud-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_EXACT && i == 1);
	extracts(t, &a, i, btf_b);
	/* uname -m says aarch64, btfhub says arm64. */
	k = key("debian", "12", "aarch64", "6.1.0-50-cloud-arm64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_EXACT && i == 2);
	/* sid: no VERSION_ID at all. */
	k = key("debian", "", "x86_64", "7.2.13+deb14-cloud-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_EXACT && i == 3);
	extracts(t, &a, i, btf_a);
	/* A bookworm host running the bullseye kernel: same ID, arch and release. */
	k = key("debian", "12", "x86_64", "5.10.0-32-cloud-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_ID && i == 0);
	/* Another distribution's os-release (a container) never borrows Debian's BTF. */
	k = key("alpine", "3.20.1", "x86_64", "6.1.0-50-cloud-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_NONE);
	/* Unknown release, or the right release on another arch: nothing. */
	k = key("debian", "12", "x86_64", "6.1.0-99-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_NONE);
	k = key("debian", "12", "ppc64le", "6.1.0-50-cloud-amd64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_NONE);
	free(bytes);
}

static void refuses_ambiguous_fallbacks(struct test_ctx *t)
{
	struct stk_btf_pack_entry e[] = {
		entry("ubuntu", "20.04", "x86_64", "5.4.0-42-generic", btf_a),
		entry("ubuntu", "18.04", "x86_64", "5.4.0-42-generic", btf_b),
		entry("centos", "8", "x86_64", "4.18.0-80.el8.x86_64", btf_a),
		entry("rhel", "8", "x86_64", "4.18.0-80.el8.x86_64", btf_a),
		entry("ubuntu", "20.04", "x86_64", "5.4.0-50-generic", btf_b),
		entry("ubuntu", "18.04", "x86_64", "5.4.0-50-generic", btf_b),
	};
	unsigned char *bytes;
	size_t size, unique;
	struct stk_btf_archive a;
	struct stk_btf_key k;
	uint32_t i;
	char err[128];

	CHECK(t, stk_btf_pack(e, sizeof(e) / sizeof(e[0]), &bytes, &size, &unique, err, sizeof(err)) == 0);
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == 0);
	/* 22.04 running 5.4.0-42: two ubuntu entries with different BTF. */
	k = key("ubuntu", "22.04", "x86_64", "5.4.0-42-generic");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_AMBIGUOUS);
	/* Another VERSION_ID, one ID with one BTF for the release: found. */
	k = key("centos", "8.2", "x86_64", "4.18.0-80.el8.x86_64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_ID && i == 2);
	extracts(t, &a, i, btf_a);
	/* Two VERSION_IDs holding the same BTF for the release: either is right. */
	k = key("ubuntu", "22.04", "x86_64", "5.4.0-50-generic");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_ID && (i == 4 || i == 5));
	extracts(t, &a, i, btf_b);
	/* Same release under two IDs, asked as a third: none. */
	k = key("rocky", "8", "x86_64", "4.18.0-80.el8.x86_64");
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_NONE);
	free(bytes);
}

static void rejects_damage(struct test_ctx *t)
{
	unsigned char *bytes;
	size_t size, unique;
	struct stk_btf_archive a;
	char err[128];

	CHECK(t, pack_fixture(&bytes, &size, &unique) == 0);
	/* Every truncation is refused by the parser, never read past. */
	for (size_t cut = 0; cut < size; cut++)
		CHECK(t, stk_btf_archive_parse(bytes, cut, &a, err, sizeof(err)) == -1);
	memcpy(bytes, "NOTSTKBT", 8);
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "not a stk BTF archive") != NULL);
	memcpy(bytes, STK_BTF_ARCHIVE_MAGIC, 8);
	/* An entry pointing past the data. */
	bytes[STK_BTF_ARCHIVE_HEADER_SIZE + 20] = 0xff;
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == -1);
	free(bytes);

	/* A claimed inflated size no compressed data of this size can give: refused before any allocation. */
	CHECK(t, pack_fixture(&bytes, &size, &unique) == 0);
	uint32_t huge = 0x70000000;
	memcpy(bytes + 16, &huge, 4);
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "bytes of data claimed") != NULL);
	free(bytes);

	/* Corrupt compressed data: inflate or the CRC check catches it. */
	CHECK(t, pack_fixture(&bytes, &size, &unique) == 0);
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == 0);
	bytes[size - 6] ^= 0x5a;
	unsigned char *btf = NULL;
	size_t len;
	CHECK(t, stk_btf_archive_extract(&a, 1, &btf, &len, err, sizeof(err)) == -1 && btf == NULL);
	/* An index past the end is refused, not read. */
	CHECK(t, stk_btf_archive_extract(&a, a.count, &btf, &len, err, sizeof(err)) == -1 && btf == NULL);
	free(bytes);
}

static void empty_archive(struct test_ctx *t)
{
	unsigned char *bytes;
	size_t size, unique;
	struct stk_btf_archive a;
	struct stk_btf_key k = key("debian", "12", "x86_64", "6.1.0-50-cloud-amd64");
	uint32_t i;
	char err[128];

	CHECK(t, stk_btf_pack(NULL, 0, &bytes, &size, &unique, err, sizeof(err)) == 0);
	CHECK(t, size == STK_BTF_ARCHIVE_HEADER_SIZE);
	CHECK(t, stk_btf_archive_parse(bytes, size, &a, err, sizeof(err)) == 0 && a.count == 0);
	CHECK(t, stk_btf_archive_find(&a, &k, &i) == STK_BTF_MATCH_NONE);
	free(bytes);
	CHECK_STR(t, stk_btf_arch_name("aarch64"), "arm64");
	CHECK_STR(t, stk_btf_arch_name("x86_64"), "x86_64");
}

const struct test_case btf_archive_tests[] = {
	{ "btf_archive_pack_find", packs_and_finds },
	{ "btf_archive_ambiguous", refuses_ambiguous_fallbacks },
	{ "btf_archive_damage", rejects_damage },
	{ "btf_archive_empty", empty_archive },
	{ NULL, NULL },
};
