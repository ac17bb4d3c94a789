/* pprof: gunzip with zlib, decode with protoc against profile.proto, and
 * check the decoded profile. protoc and the schema come from the Debian
 * packages protobuf-compiler and golang-github-google-pprof-dev. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "test_output_fixture.h"

#define PROTO_DIR "/usr/share/gocode/src/github.com/google/pprof/proto"

static int gunzip_file(const char *in, const char *out)
{
	size_t len;
	char *gz = output_slurp(in, &len);
	unsigned char chunk[4096];
	z_stream zs = { 0 };
	FILE *f;
	int zret = Z_DATA_ERROR;

	if (!gz)
		return -1;
	f = fopen(out, "wb");
	if (!f || inflateInit2(&zs, 31) != Z_OK) {
		free(gz);
		if (f)
			fclose(f);
		return -1;
	}
	zs.next_in = (unsigned char *)gz;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zret = inflate(&zs, Z_NO_FLUSH);
		if (zret != Z_OK && zret != Z_STREAM_END)
			break;
		fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, f);
	} while (zret != Z_STREAM_END);
	inflateEnd(&zs);
	free(gz);
	return fclose(f) == 0 && zret == Z_STREAM_END ? 0 : -1;
}

/* The next line after p (walked by hand: sanitizers make repeated strstr
 * over a large text quadratic). */
static const char *next_line(const char *p)
{
	while (*p && *p != '\n')
		p++;
	return *p ? p + 1 : NULL;
}

/* Lines that start with prefix. */
static size_t count(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p; p = next_line(p))
		n += strncmp(p, prefix, len) == 0;
	return n;
}

/* Sum of the samples' "  value: N" lines. */
static uint64_t sum_values(const char *text)
{
	uint64_t sum = 0;

	for (const char *p = text; p; p = next_line(p))
		if (strncmp(p, "  value: ", 9) == 0)
			sum += strtoull(p + 9, NULL, 10);
	return sum;
}

/* Index of "string_table: \"WANT\"" among the string_table lines, or -1. */
static long string_index(const char *text, const char *want)
{
	char line[512];
	long i = 0;

	snprintf(line, sizeof(line), "string_table: \"%s\"\n", want);
	for (const char *p = text; p; p = next_line(p)) {
		if (strncmp(p, "string_table: ", 14) != 0)
			continue;
		if (strncmp(p, line, strlen(line)) == 0)
			return i;
		i++;
	}
	return -1;
}

/* The decoded "location { ... }" block holding address, or NULL; caller frees. */
static char *location_block(const char *text, uint64_t address)
{
	char needle[64];
	const char *p, *start, *end;

	snprintf(needle, sizeof(needle), "  address: %" PRIu64 "\n", address);
	p = strstr(text, needle);
	if (!p)
		return NULL;
	for (start = p; start > text && strncmp(start, "location {", 10) != 0; start--)
		;
	end = strstr(p, "\n}");
	return end ? strndup(start, (size_t)(end - start)) : NULL;
}

static void check_decoded(struct test_ctx *t, const char *text)
{
	char want[128];
	long widget, tmp_w, build_id;

	/* string_table[0] is "" */
	const char *first = strstr(text, "string_table: ");
	CHECK(t, first && strncmp(first, "string_table: \"\"\n", 17) == 0);
	CHECK(t, sum_values(text) == FIXTURE_TOTAL);
	CHECK(t, count(text, "sample {") == 5);
	CHECK(t, count(text, "mapping {") == 3); /* kernel, /tmp/w, /usr/lib/x.so */
	/* /usr/lib/x.so has an unnamed frame: left for pprof to symbolize */
	CHECK(t, count(text, "  has_functions: true") == 2);
	/* the executable is mapping 1, pprof's main binary, not the kernel */
	CHECK(t, strstr(text, "mapping {\n  id: 1\n  memory_start: 4194304\n") != NULL);
	CHECK(t, count(text, "location {") == 14);
	CHECK(t, count(text, "function {") == 10);
	CHECK(t, count(text, "  label {") == 15);
	CHECK(t, strstr(text, "time_nanos: 1700000000000000000\n") != NULL);
	CHECK(t, strstr(text, "duration_nanos: 5000000000\n") != NULL);
	CHECK(t, strstr(text, "period: 10101010\n") != NULL);
	CHECK(t, strstr(text, "period_type {\n") != NULL);
	CHECK(t, string_index(text, "samples") > 0 && string_index(text, "count") > 0);
	CHECK(t, string_index(text, "cpu") > 0 && string_index(text, "nanoseconds") > 0);
	CHECK(t, string_index(text, "[kernel.kallsyms]") > 0);
	CHECK(t, string_index(text, "ext4") > 0);
	CHECK(t, string_index(text, "native_write_msr") > 0);
	CHECK(t, string_index(text, "[Missed Kernel Stack]") > 0);
	CHECK(t, string_index(text, "comm") > 0 && string_index(text, "worker") > 0);
	CHECK(t, string_index(text, "pid") > 0 && string_index(text, "tid") > 0);

	widget = string_index(text, "ns::Widget<int>::run(int, char const*) const");
	tmp_w = string_index(text, "/tmp/w");
	build_id = string_index(text, "abcdef0123");
	CHECK(t, widget > 0 && tmp_w > 0 && build_id > 0);
	snprintf(want, sizeof(want), "  name: %ld\n  system_name: %ld\n  filename: %ld\n", widget, widget, tmp_w);
	CHECK(t, strstr(text, want) != NULL);
	snprintf(want, sizeof(want), "  filename: %ld\n  build_id: %ld\n  has_functions: true\n", tmp_w, build_id);
	CHECK(t, strstr(text, want) != NULL);
	snprintf(want, sizeof(want), "  file_offset: 4096\n  filename: %ld\n}", string_index(text, "/usr/lib/x.so"));
	CHECK(t, strstr(text, want) != NULL);
	CHECK(t, strstr(text, "  memory_start: 4194304\n  memory_limit: 4202496\n") != NULL);

	/* the unresolved frame: address and mapping, no line */
	char *unresolved = location_block(text, 0x7f00deadbeef);
	CHECK(t, unresolved != NULL);
	if (unresolved) {
		CHECK(t, strstr(unresolved, "mapping_id: ") != NULL);
		CHECK(t, strstr(unresolved, "line") == NULL);
	}
	free(unresolved);
	char *resolved = location_block(text, 0x401136);
	CHECK(t, resolved != NULL && strstr(resolved, "  line {\n    function_id: ") != NULL);
	free(resolved);

	/* the first sample is stack a: kernel leaf first, then user leaf first */
	CHECK(t, strstr(text, "sample {\n  location_id: 1\n  location_id: 2\n  location_id: 3\n  location_id: 4\n"
			      "  location_id: 5\n  location_id: 6\n  value: 5\n") != NULL);
	char *leaf = location_block(text, 0xffffffff81001234);
	CHECK(t, leaf != NULL && strncmp(leaf, "location {\n  id: 1\n", 19) == 0);
	free(leaf);
}

/* r as pprof, gunzipped and decoded by protoc: the text, or NULL (a failure is recorded). */
static char *decode(struct test_ctx *t, const struct stk_report *r)
{
	char dir[256], gz[300], raw[300], txt[300], cmd[1200];
	struct stk_output_opts o = { .format = STK_FORMAT_PPROF };
	size_t len;
	char *text;
	int failures = t->failures;

	if (output_have_tool("protoc")) {
		printf("  protoc not found: install protobuf-compiler (and golang-github-google-pprof-dev)\n");
		t->failures++;
		return NULL;
	}
	if (access(PROTO_DIR "/profile.proto", R_OK) != 0) {
		printf("  %s/profile.proto not found: install golang-github-google-pprof-dev\n", PROTO_DIR);
		t->failures++;
		return NULL;
	}
	if (make_scratch_dir(dir, sizeof(dir)) != 0) {
		printf("  cannot create a scratch directory\n");
		t->failures++;
		return NULL;
	}
	snprintf(gz, sizeof(gz), "%s/p.pb.gz", dir);
	snprintf(raw, sizeof(raw), "%s/p.pb", dir);
	snprintf(txt, sizeof(txt), "%s/p.txt", dir);
	CHECK(t, output_render_file(r, &o, gz) == 0);
	CHECK(t, gunzip_file(gz, raw) == 0);
	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=perftools.profiles.Profile --proto_path=%s profile.proto <%s >%s",
		 PROTO_DIR, raw, txt);
	CHECK(t, system(cmd) == 0);
	text = output_slurp(txt, &len);
	CHECK(t, text != NULL);
	if (t->failures == failures)
		remove_tree(dir);
	else
		printf("  files kept in %s\n", dir);
	return text;
}

static void pprof_decodes(struct test_ctx *t)
{
	struct stk_report r;
	char *text;
	int failures = t->failures;

	output_fixture(&r);
	text = decode(t, &r);
	if (text)
		check_decoded(t, text);
	if (t->failures != failures && text)
		printf("  decoded profile:\n%s\n", text);
	free(text);
}

static void pprof_many_stacks(struct test_ctx *t)
{
	struct big_report b;
	char *text;

	CHECK(t, big_report_init(&b, 3000) == 0);
	text = decode(t, &b.report);
	if (text) {
		CHECK(t, sum_values(text) == 3000);
		CHECK(t, count(text, "sample {") == 3000);
		CHECK(t, count(text, "location {") == 12000);
		/* fn_I_0 per stack, fn_1_1 fn_2_2 fn_3_3 shared */
		CHECK(t, count(text, "function {") == 3003);
		CHECK(t, count(text, "mapping {") == 2);
		CHECK(t, string_index(text, "fn_2999_0") > 0);
	}
	free(text);
	big_report_free(&b);
}

/* Several value types: a sample type each, with its unit; a stack with values of two types is one sample. */
static void pprof_typed(struct test_ctx *t)
{
	struct stk_report r;
	char *text;
	char want[256];
	int failures = t->failures;

	output_typed_fixture(&r);
	text = decode(t, &r);
	if (!text)
		return;
	long rss = string_index(text, "rss"), bytes = string_index(text, "bytes");
	long bt = string_index(text, "block_time"), us = string_index(text, "microseconds");
	CHECK(t, rss > 0 && bytes > 0 && bt > 0 && us > 0);
	snprintf(want, sizeof(want), "sample_type {\n  type: %ld\n  unit: %ld\n}\nsample_type {\n  type: %ld\n  unit: %ld\n}\n",
		 rss, bytes, bt, us);
	CHECK(t, strstr(text, want) != NULL);
	/* touch_pages's two stacks (same locations and labels) one sample, write_leaf one with both values,
	 * the kworker one */
	CHECK(t, count(text, "sample {") == 3);
	CHECK(t, count(text, "  value: ") == 6);
	CHECK(t, strstr(text, "  value: 12288\n  value: 300\n") != NULL);
	CHECK(t, strstr(text, "  value: 0\n  value: 100\n") != NULL);
	CHECK(t, sum_values(text) == TYPED_RSS_TOTAL + TYPED_BLOCK_TIME_TOTAL);
	if (t->failures != failures)
		printf("  decoded profile:\n%s\n", text);
	free(text);
}

const struct test_case output_pprof_tests[] = {
	{ "output_pprof_typed", pprof_typed },
	{ "output_pprof_decodes", pprof_decodes },
	{ "output_pprof_many_stacks", pprof_many_stacks },
	{ NULL, NULL },
};
