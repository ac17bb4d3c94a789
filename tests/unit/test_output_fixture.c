/* The report the output tests render (see test_output_fixture.h). */
#include <stdio.h>
#include <stdlib.h>

#include "test_output_fixture.h"

static const struct stk_frame a_kernel[] = {
	{ .symbol = "native_write_msr", .address = 0xffffffff81001234, .symbol_offset = 0x14, .kernel = true },
	{ .symbol = "ext4_file_write_iter", .module = "ext4", .address = 0xffffffffc0100030,
	  .symbol_offset = 0x30, .kernel = true },
	{ .symbol = "vfs_write", .address = 0xffffffff81200010, .symbol_offset = 0x10, .kernel = true },
};

static const struct stk_frame a_user[] = {
	{ .symbol = "ns::Widget<int>::run(int, char const*) const", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123",
	  .address = 0x401136, .symbol_offset = 0x12, .map_start = 0x400000, .map_end = 0x402000 },
	{ .symbol = NULL, .module = "/usr/lib/x.so", .address = 0x7f00deadbeef, .map_start = 0x7f00dead0000,
	  .map_end = 0x7f00deae0000, .map_offset = 0x1000 },
	{ .symbol = "main", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123", .address = 0x401200,
	  .symbol_offset = 0x20, .map_start = 0x400000, .map_end = 0x402000 },
};

/* b and c differ only in addresses: they fold to the same line */
static const struct stk_frame b_user[] = {
	{ .symbol = "compute(double)", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123", .address = 0x401300,
	  .symbol_offset = 0x4, .map_start = 0x400000, .map_end = 0x402000 },
	{ .symbol = "main", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123", .address = 0x401210,
	  .symbol_offset = 0x30, .map_start = 0x400000, .map_end = 0x402000 },
};

static const struct stk_frame c_user[] = {
	{ .symbol = "compute(double)", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123", .address = 0x401310,
	  .symbol_offset = 0x14, .map_start = 0x400000, .map_end = 0x402000 },
	{ .symbol = "main", .module = "/tmp/w", .main_exe = true, .build_id = "abcdef0123", .address = 0x401220,
	  .symbol_offset = 0x40, .map_start = 0x400000, .map_end = 0x402000 },
};

static const struct stk_frame d_kernel[] = {
	{ .symbol = "schedule", .address = 0xffffffff81300000, .kernel = true },
	{ .symbol = "worker_thread", .address = 0xffffffff81400000, .kernel = true },
};

static const struct stk_frame e_user[] = {
	{ .symbol = "odd;name", .module = "/tmp/w", .main_exe = true, .address = 0x401400, .map_start = 0x400000, .map_end = 0x402000,
	  .build_id = "abcdef0123" },
};

static const struct stk_stack fixture_stacks[] = {
	{ .pid = 100, .tid = 101, .comm = "worker", .value = 5, .kernel = a_kernel, .n_kernel = 3, .user = a_user,
	  .n_user = 3 },
	{ .pid = 100, .tid = 102, .comm = "worker", .value = 2, .user = b_user, .n_user = 2 },
	{ .pid = 200, .tid = 200, .comm = "worker", .value = 4, .user = c_user, .n_user = 2 },
	{ .pid = 7, .tid = 7, .comm = "kworker/0:1", .value = 1, .kernel = d_kernel, .n_kernel = 2 },
	{ .pid = 300, .tid = 301, .comm = "app", .value = 1, .user = e_user, .n_user = 1, .kernel_missing = true },
};

void output_fixture(struct stk_report *r)
{
	*r = (struct stk_report){
		.stacks = fixture_stacks,
		.n_stacks = sizeof(fixture_stacks) / sizeof(fixture_stacks[0]),
		.value_type = "samples",
		.value_unit = "count",
		.period_type = "cpu",
		.period_unit = "nanoseconds",
		.period = 10101010,
		.time_nanos = 1700000000000000000,
		.duration_nanos = 5000000000,
		.title = "stk profile <test> & 'q'",
	};
}

/* Two value types: rss growth in bytes and block time in microseconds. */
static const struct stk_value_type typed_types[] = { { "rss", "bytes" }, { "block_time", "microseconds" } };

static const struct stk_frame touch_user[] = {
	{ .symbol = "touch_pages", .module = "/tmp/w", .main_exe = true, .address = 0x401500, .map_start = 0x400000,
	  .map_end = 0x402000 },
	{ .symbol = "main", .module = "/tmp/w", .main_exe = true, .address = 0x401230, .map_start = 0x400000,
	  .map_end = 0x402000 },
};

static const struct stk_frame write_user[] = {
	{ .symbol = "write_leaf", .module = "/tmp/w", .main_exe = true, .address = 0x401600, .map_start = 0x400000,
	  .map_end = 0x402000 },
	{ .symbol = "main", .module = "/tmp/w", .main_exe = true, .address = 0x401240, .map_start = 0x400000,
	  .map_end = 0x402000 },
};

static const struct stk_frame flush_kernel[] = {
	{ .symbol = "wb_writeback", .address = 0xffffffff81500000, .kernel = true },
	{ .symbol = "worker_thread", .address = 0xffffffff81400000, .kernel = true },
};

/* write_leaf's stack weighs in both types (one pprof sample with two values); touch_pages's
 * two stacks are the same stack counted twice (one block, line and sample). */
static const struct stk_stack typed_stacks[] = {
	{ .pid = 10, .tid = 10, .comm = "app", .value = 4096, .type = 0, .user = touch_user, .n_user = 2 },
	{ .pid = 10, .tid = 10, .comm = "app", .value = 8192, .type = 0, .user = touch_user, .n_user = 2 },
	{ .pid = 10, .tid = 10, .comm = "app", .value = 12288, .type = 0, .user = write_user, .n_user = 2 },
	{ .pid = 10, .tid = 10, .comm = "app", .value = 300, .type = 1, .user = write_user, .n_user = 2 },
	{ .pid = 5, .tid = 5, .comm = "kworker/u4:1", .value = 100, .type = 1, .kernel = flush_kernel,
	  .n_kernel = 2 },
};

void output_typed_fixture(struct stk_report *r)
{
	*r = (struct stk_report){
		.stacks = typed_stacks,
		.n_stacks = sizeof(typed_stacks) / sizeof(typed_stacks[0]),
		.types = typed_types,
		.n_types = 2,
		.time_nanos = 1700000000000000000,
		.duration_nanos = 2000000000,
		.title = "stk resources: rss (bytes), block_time (microseconds)",
	};
}

int big_report_init(struct big_report *b, size_t n)
{
	*b = (struct big_report){ 0 };
	b->stacks = calloc(n, sizeof(*b->stacks));
	b->frames = calloc(n * 4, sizeof(*b->frames));
	b->names = calloc(n * 4, sizeof(*b->names));
	if (!b->stacks || !b->frames || !b->names) {
		big_report_free(b);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < 4; j++) {
			struct stk_frame *f = &b->frames[i * 4 + j];

			snprintf(b->names[i * 4 + j], sizeof(b->names[0]), "fn_%zu_%zu", j ? j : i, j);
			f->symbol = b->names[i * 4 + j];
			f->module = j == 3 ? "/bin/big" : "/lib/big.so";
			f->address = 0x1000 + i * 16 + j;
			f->map_start = 0x1000;
			f->map_end = 0x100000;
		}
		b->stacks[i] = (struct stk_stack){ .pid = (uint32_t)i, .tid = (uint32_t)i, .comm = "big",
						   .value = 1, .user = &b->frames[i * 4], .n_user = 4 };
	}
	b->report = (struct stk_report){ .stacks = b->stacks, .n_stacks = n, .value_unit = "count" };
	return 0;
}

void big_report_free(struct big_report *b)
{
	free(b->stacks);
	free(b->frames);
	free(b->names);
	*b = (struct big_report){ 0 };
}

/* Whole file into a malloc'ed, NUL-terminated buffer. */
char *output_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *d = realloc(data, cap = (n + 4096 + 1) * 2);
			if (!d) {
				free(data);
				fclose(f);
				return NULL;
			}
			data = d;
		}
		got = fread(data + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	data[n] = '\0';
	*len = n;
	return data;
}

char *output_render(const struct stk_report *r, const struct stk_output_opts *o, size_t *len, int *ret)
{
	char *data = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&data, &n);

	if (!f) {
		*ret = -1;
		return NULL;
	}
	*ret = stk_output_write(f, r, o);
	if (fclose(f) != 0)
		*ret = -1;
	if (len)
		*len = n;
	return data;
}

int output_render_file(const struct stk_report *r, const struct stk_output_opts *o, const char *path)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = stk_output_write(f, r, o);
	if (fclose(f) != 0)
		ret = -1;
	return ret;
}

int output_have_tool(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0 ? 0 : -1;
}
