/*
 * core/sym/jitdump.c on files made here: names and CFI taken from code
 * loads, bounds on a hostile file (lying sizes, cut records, names without
 * an end); then on this very process: a jitdump it maps names its JIT
 * code (before its perf map), and the copy unwinder walks out of that code
 * with the jitdump's CFI, where without it the chain ends there.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/byte_buf.h"
#include "core/sym/jitdump.h"
#include "core/sym/symbolize.h"
#include "core/unwind/unwind_dwarf.h"

/*
 * The .eh_frame CPython 3.13 writes for each 15-byte trampoline, placed 16
 * bytes after its code: CFA rsp+8 at entry, rsp+16 from byte 8 to 14.
 */
static const uint8_t trampoline_eh_frame[] = {
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x7a, 0x52, 0x00, 0x01, 0x78, 0x10, 0x01,
	0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
	0xd0, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x48, 0x0e, 0x10, 0x46, 0x0e, 0x08, 0x00,
};
/* and its .eh_frame_hdr, which follows it in the record */
static const uint8_t trampoline_eh_frame_hdr[] = {
	0x01, 0x1b, 0x03, 0x3b, 0xcc, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00,
	0xc0, 0xff, 0xff, 0xff, 0xe8, 0xff, 0xff, 0xff,
};

static void header(struct stk_buf *b)
{
	stk_buf_le32(b, 0x4A695444);
	stk_buf_le32(b, 1);
	stk_buf_le32(b, 40);
	stk_buf_le32(b, 62); /* EM_X86_64 */
	stk_buf_le32(b, 0);
	stk_buf_le32(b, 1234);
	stk_buf_le64(b, 1);
	stk_buf_le64(b, 0);
}

/* A code load of size bytes at addr with written code bytes (0xcc) in the record: all of them unless it lies. */
static void load_lying(struct stk_buf *b, uint64_t addr, uint64_t size, const char *name, uint64_t written)
{
	size_t nl = strlen(name) + 1;

	stk_buf_le32(b, 0);
	stk_buf_le32(b, (uint32_t)(16 + 40 + nl + written));
	stk_buf_le64(b, 2);
	stk_buf_le32(b, 1234);
	stk_buf_le32(b, 1234);
	stk_buf_le64(b, addr);
	stk_buf_le64(b, addr);
	stk_buf_le64(b, size);
	stk_buf_le64(b, 7);
	stk_buf_put(b, name, nl);
	for (uint64_t i = 0; i < written; i++)
		stk_buf_put(b, "\xcc", 1);
}

static void load(struct stk_buf *b, uint64_t addr, uint64_t size, const char *name)
{
	load_lying(b, addr, size, name, size);
}

/* The jitdump is in the writer's byte order: these tests run on little-endian machines. */

/* The trampoline's unwinding record; hdr_size as given (the true one unless a test lies). */
static void unwinding(struct stk_buf *b, uint64_t hdr_size)
{
	uint64_t size = sizeof(trampoline_eh_frame) + sizeof(trampoline_eh_frame_hdr);

	stk_buf_le32(b, 4);
	stk_buf_le32(b, (uint32_t)(16 + 24 + size));
	stk_buf_le64(b, 3);
	stk_buf_le64(b, size);
	stk_buf_le64(b, hdr_size);
	stk_buf_le64(b, size);
	stk_buf_put(b, trampoline_eh_frame, sizeof(trampoline_eh_frame));
	stk_buf_put(b, trampoline_eh_frame_hdr, sizeof(trampoline_eh_frame_hdr));
}

static struct stk_jitdump *parse(struct stk_buf *b, const char **why)
{
	return stk_jitdump_parse(b->data, b->len, why);
}

static bool named(const struct stk_jitdump *d, uint64_t addr, const char *want, uint64_t want_off)
{
	const char *name;
	uint64_t off;

	return stk_perf_map_lookup(d->names, addr, &name, &off) == 0 && strcmp(name, want) == 0 && off == want_off;
}

static void parses_loads_and_cfi(struct test_ctx *t)
{
	struct stk_buf b = { 0 };
	const char *why;
	struct stk_jitdump *d;

	header(&b);
	unwinding(&b, sizeof(trampoline_eh_frame_hdr));
	load(&b, 0x1000, 15, "py::first:/a.py");
	unwinding(&b, sizeof(trampoline_eh_frame_hdr));
	load(&b, 0x1110, 15, "py::second:/a.py");
	load(&b, 0x2000, 32, "no_cfi"); /* an unwinding record applies to the next load only */
	load(&b, 0x1000, 15, "py::first_again:/a.py"); /* the newer load wins */
	stk_buf_le32(&b, 2); /* debug info: skipped by its size */
	stk_buf_le32(&b, 24);
	stk_buf_le64(&b, 0);
	stk_buf_le64(&b, 0);
	stk_buf_le32(&b, 3); /* close: what follows is not read */
	stk_buf_le32(&b, 16);
	stk_buf_le64(&b, 0);
	load(&b, 0x3000, 8, "after_close");
	d = parse(&b, &why);
	CHECK(t, d != NULL);
	if (!d)
		goto out;
	CHECK(t, d->machine == 62 && d->loads == 4 && d->records == 8 && d->stop == NULL);
	CHECK(t, named(d, 0x1003, "py::first_again:/a.py", 3));
	CHECK(t, named(d, 0x111e, "py::second:/a.py", 14));
	CHECK(t, named(d, 0x201f, "no_cfi", 31));
	const char *name;
	uint64_t off;
	CHECK(t, stk_perf_map_lookup(d->names, 0x111f, &name, &off) == -1);
	CHECK(t, stk_perf_map_lookup(d->names, 0x3000, &name, &off) == -1);
	/* two ranges with CFI, the same bytes kept once, placed after the code rounded up to 8 */
	CHECK(t, d->n_code == 2 && d->n_eh_frames == 1);
	CHECK(t, d->n_code == 2 && d->code[0].start == 0x1000 && d->code[0].size == 15 && d->code[1].start == 0x1110);
	CHECK(t, d->n_eh_frames == 1 && d->eh_frames[0].addr == 16 && d->eh_frames[0].size == sizeof(trampoline_eh_frame) &&
		     memcmp(d->eh_frames[0].bytes, trampoline_eh_frame, sizeof(trampoline_eh_frame)) == 0);
out:
	stk_jitdump_free(d);
	stk_buf_free(&b);
}

static void refuses_what_is_no_jitdump(struct test_ctx *t)
{
	struct stk_buf b = { 0 };
	const char *why;

	stk_buf_le32(&b, 0x4A695444);
	CHECK(t, parse(&b, &why) == NULL && why && strstr(why, "shorter"));
	b.len = 0;
	header(&b);
	memcpy(b.data, "JiTD", 4); /* the other byte order */
	CHECK(t, parse(&b, &why) == NULL && why && strstr(why, "byte order"));
	memcpy(b.data, "ELF!", 4);
	CHECK(t, parse(&b, &why) == NULL && why && strstr(why, "magic"));
	b.len = 0;
	header(&b);
	((uint32_t *)b.data)[2] = 1u << 30; /* a header bigger than the file */
	CHECK(t, parse(&b, &why) == NULL && why && strstr(why, "header"));
	stk_buf_free(&b);
}

static void hostile_records_are_bounded(struct test_ctx *t)
{
	struct stk_buf b = { 0 };
	const char *why;
	struct stk_jitdump *d;

	header(&b);
	load(&b, 0x1000, 8, "good");
	/* a name without its end: the record is skipped, the next one read */
	stk_buf_le32(&b, 0);
	stk_buf_le32(&b, 16 + 40 + 4);
	stk_buf_le64(&b, 0);
	stk_buf_le32(&b, 1);
	stk_buf_le32(&b, 1);
	stk_buf_le64(&b, 0x5000);
	stk_buf_le64(&b, 0x5000);
	stk_buf_le64(&b, 1);
	stk_buf_le64(&b, 1);
	stk_buf_put(&b, "abcd", 4);
	/* code bytes the record does not hold, a range that wraps */
	load_lying(&b, 0x6000, 4096, "too_big", 8);
	load(&b, UINT64_MAX - 3, 8, "wraps");
	/* CFI whose header is bigger than the whole: no CFI, the load still named */
	unwinding(&b, 1000);
	load(&b, 0x7000, 15, "bad_cfi");
	/* a record whose size runs past the file: reading ends there */
	stk_buf_le32(&b, 0);
	stk_buf_le32(&b, 1u << 20);
	stk_buf_le64(&b, 0);
	d = parse(&b, &why);
	CHECK(t, d != NULL);
	if (d) {
		const char *name;
		uint64_t off;

		CHECK(t, named(d, 0x1004, "good", 4) && named(d, 0x7000, "bad_cfi", 0));
		CHECK(t, stk_perf_map_lookup(d->names, 0x5000, &name, &off) == -1);
		CHECK(t, stk_perf_map_lookup(d->names, 0x6000, &name, &off) == -1);
		CHECK(t, stk_perf_map_lookup(d->names, UINT64_MAX - 1, &name, &off) == -1);
		CHECK(t, d->n_code == 0 && d->stop && strstr(d->stop, "cut short"));
	}
	stk_jitdump_free(d);
	/* a record smaller than its head cannot move on: reading ends */
	b.len = 0;
	header(&b);
	stk_buf_le32(&b, 0);
	stk_buf_le32(&b, 8);
	stk_buf_le64(&b, 0);
	load(&b, 0x1000, 8, "unreached");
	d = parse(&b, &why);
	CHECK(t, d && d->records == 0 && d->stop && strstr(d->stop, "smaller"));
	stk_jitdump_free(d);
	/* CFI over the bound is dropped and counted */
	b.len = 0;
	header(&b);
	stk_buf_le32(&b, 4);
	stk_buf_le32(&b, 16 + 24 + STK_JITDUMP_MAX_CFI + 8);
	stk_buf_le64(&b, 0);
	stk_buf_le64(&b, STK_JITDUMP_MAX_CFI + 8);
	stk_buf_le64(&b, 0);
	stk_buf_le64(&b, 0);
	for (size_t i = 0; i < STK_JITDUMP_MAX_CFI + 8; i++)
		stk_buf_put(&b, "", 1);
	load(&b, 0x1000, 8, "big_cfi");
	d = parse(&b, &why);
	CHECK(t, d && d->cfi_dropped == 1 && d->n_code == 0 && named(d, 0x1000, "big_cfi", 0));
	stk_jitdump_free(d);
	stk_buf_free(&b);
}

#if defined(__x86_64__)

/* A function with CFI whose address the fake JIT frame returns to. */
__attribute__((noinline)) int jitdump_test_caller(int x)
{
	volatile int r = x;

	return r + 1;
}

/*
 * This process maps 15 bytes of "JIT code" and, when with_dump, a jitdump
 * naming it with the trampoline's CFI; the copy unwinder then walks a fake
 * stack whose leaf is inside that code.
 */
static size_t walk_from_jit(struct test_ctx *t, uint64_t code, bool with_dump, const char *dump_path, uint64_t *ips)
{
	struct stk_symbolizer_opts o = { .keep_elf = true };
	struct stk_symbolizer *sym = stk_symbolizer_new(&o);
	struct stk_unwind_source src;
	struct stk_unwinder *u;
	uint64_t regs[17] = { 0 }, stack[8] = { 0 };
	struct stk_unwind_result r = { .ips = ips, .max = 8 };
	void *dump_map = MAP_FAILED;
	int fd = -1;

	if (with_dump) {
		struct stk_buf b = { 0 };

		header(&b);
		unwinding(&b, sizeof(trampoline_eh_frame_hdr));
		load(&b, code, 15, "py::jitted:/t.py");
		fd = open(dump_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		CHECK(t, fd >= 0 && write(fd, b.data, b.len) == (ssize_t)b.len);
		/* mapped as JITs map it, so profilers find it */
		dump_map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		CHECK(t, dump_map != MAP_FAILED);
		stk_buf_free(&b);
	}
	src = stk_symbolizer_unwind_source(sym);
	u = stk_unwinder_new(&src);
	/* at byte 10 the CFA is rsp + 16: the return address is the second word */
	regs[7] = 0x7000;
	regs[16] = code + 10;
	stack[1] = (uint64_t)(uintptr_t)jitdump_test_caller + 4;
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(), .regs = regs, .n_regs = 17, .sp = regs[7],
					.stack = (const uint8_t *)stack, .stack_len = sizeof(stack) };
	stk_unwind(u, &in, &r);
	if (with_dump) {
		struct stk_frame f;

		stk_symbolize_user(sym, getpid(), code + 3, &f);
		CHECK(t, f.symbol && strcmp(f.symbol, "py::jitted:/t.py") == 0 && f.symbol_offset == 3);
		CHECK(t, f.module && strcmp(f.module, "[jitdump]") == 0);
	}
	stk_unwinder_free(u);
	stk_symbolizer_free(sym);
	if (dump_map != MAP_FAILED)
		munmap(dump_map, 4096);
	if (fd >= 0)
		close(fd);
	return r.n;
}

static void names_and_walks_jit_code(struct test_ctx *t)
{
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char dump[64], perf[64];
	uint64_t ips[8];
	FILE *f;

	CHECK(t, code != MAP_FAILED);
	if (code == MAP_FAILED)
		return;
	snprintf(dump, sizeof(dump), "/tmp/jit-%d.dump", (int)getpid());
	snprintf(perf, sizeof(perf), "/tmp/perf-%d.map", (int)getpid());
	/* a perf map naming the same code otherwise: the jitdump's name wins */
	f = fopen(perf, "w");
	CHECK(t, f != NULL);
	if (f) {
		fprintf(f, "%llx f perf_map_name\n", (unsigned long long)(uintptr_t)code);
		fclose(f);
	}
	/* without the jitdump the chain ends at the JIT frame */
	CHECK(t, walk_from_jit(t, (uintptr_t)code, false, dump, ips) == 1);
	size_t n = walk_from_jit(t, (uintptr_t)code, true, dump, ips);

	CHECK(t, n >= 2 && ips[0] == (uintptr_t)code + 10 && ips[1] == (uint64_t)(uintptr_t)jitdump_test_caller + 4);
	unlink(dump);
	unlink(perf);
	munmap(code, 4096);
}

#endif

const struct test_case jitdump_tests[] = {
	{ "jitdump_parses_loads_and_cfi", parses_loads_and_cfi },
	{ "jitdump_refuses_what_is_no_jitdump", refuses_what_is_no_jitdump },
	{ "jitdump_hostile_records_are_bounded", hostile_records_are_bounded },
#if defined(__x86_64__)
	{ "jitdump_names_and_walks_jit_code", names_and_walks_jit_code },
#endif
	{ NULL, NULL },
};
