/*
 * core/runtime/python*.c: the line table, str objects as text, layouts
 * (3.11's table, 3.13's published offsets and ones that lie), and the walk
 * and naming over an image of memory shaped like a 3.11 interpreter, with
 * the hostile shapes a process can give it: cycles in frames, threads and
 * interpreters, huge names, pointers into unmapped memory, a code object
 * replaced at its address.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "python_offsets.h"
#include "core/runtime/python.h"
#include "core/runtime/python_lines.h"
#include "core/runtime/python_text.h"

/* A function's line table from CPython 3.11 (first line 2) and the line of each of its 67 code units (co_lines). */
static const uint8_t table311[] = {
	0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c, 0x58, 0xf0, 0x00,
	0x07, 0x05, 0x13, 0xf0, 0x00, 0x07, 0x05, 0x13, 0x88, 0x01, 0xd8, 0x08, 0x09, 0x88, 0x51, 0x89, 0x06, 0x88,
	0x01, 0xe0, 0x0b, 0x0c, 0x88, 0x71, 0x8a, 0x35, 0x88, 0x35, 0xf0, 0x08, 0x00, 0x0d, 0x0e, 0x90, 0x11, 0x89,
	0x46, 0x88, 0x41, 0xf8, 0xf0, 0x02, 0x03, 0x05, 0x0e, 0xd8, 0x0c, 0x0d, 0x90, 0x01, 0x89, 0x45, 0x88, 0x01,
	0x88, 0x01, 0xf8, 0xdd, 0x0b, 0x1c, 0xf0, 0x00, 0x01, 0x05, 0x0e, 0xf0, 0x00, 0x01, 0x05, 0x0e, 0xf0, 0x00,
	0x01, 0x05, 0x0e, 0xd8, 0x0c, 0x0d, 0x88, 0x01, 0x88, 0x01, 0x88, 0x01, 0xf0, 0x03, 0x01, 0x05, 0x0e, 0xf8,
	0xf8, 0xf8, 0xe0, 0x0c, 0x0d, 0xd8, 0x0c, 0x0d, 0xf1, 0x03, 0x01, 0x0d, 0x0e, 0xf0, 0x00, 0x01, 0x05, 0x0f,
};
static const uint32_t lines311[67] = {
	2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 11, 11, 11,
	11, 11, 0, 12, 13, 13, 13, 13, 13, 13, 0, 14, 14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 14, 0, 0, 0, 16,
	17, 16, 16, 16,
};

static void line_table(struct test_ctx *t)
{
	int bad = 0;

	for (uint32_t u = 0; u < 67; u++)
		if (stk_python_line(table311, sizeof(table311), 2, u) != lines311[u]) {
			printf("  code unit %u: line %u, want %u\n", u, stk_python_line(table311, sizeof(table311), 2, u),
			       lines311[u]);
			bad++;
		}
	CHECK(t, bad == 0);
	/* past the table, an empty table, a table cut inside a varint */
	CHECK(t, stk_python_line(table311, sizeof(table311), 2, 67) == 0);
	CHECK(t, stk_python_line(NULL, 0, 2, 0) == 0);
	CHECK(t, stk_python_line(table311, 18, 2, 1000) == 0);
	/* a line that would go below 1 is no line */
	static const uint8_t down[] = { 0xe8, 0x0b }; /* no columns, delta -5 */
	CHECK(t, stk_python_line(down, sizeof(down), 3, 0) == 0);
	CHECK(t, stk_python_line(down, sizeof(down), 10, 0) == 5);
}

static void text(struct test_ctx *t)
{
	char out[STK_PY_TEXT_MAX];
	static const uint8_t latin1[] = { 'c', 'a', 'f', 0xe9 };
	static const uint8_t ucs2[] = { 0xa9, 0x03, '\\', 0, 0x00, 0xd8 }; /* Ω, backslash, a lone surrogate */
	static const uint8_t ucs4[] = { 0x00, 0xf6, 0x01, 0x00, '\n', 0, 0, 0, 0x00, 0x00, 0x11, 0x00 };
	static const uint8_t ctl[] = { 'a', 0x1b, '[', '2', 'J', 0x7f, 0x85 };

	stk_python_text((const uint8_t *)"Sleeper.nap", 11, 1, 0, out, sizeof(out));
	CHECK_STR(t, out, "Sleeper.nap");
	stk_python_text(latin1, 4, 1, 0, out, sizeof(out));
	CHECK_STR(t, out, "caf\xc3\xa9");
	stk_python_text(ucs2, 3, 2, 0, out, sizeof(out));
	CHECK_STR(t, out, "\xce\xa9\\\\\\ud800");
	stk_python_text(ucs4, 3, 4, 0, out, sizeof(out));
	CHECK_STR(t, out, "\xf0\x9f\x98\x80\\x0a\\u110000");
	stk_python_text(ctl, sizeof(ctl), 1, 0, out, sizeof(out));
	CHECK_STR(t, out, "a\\x1b[2J\\x7f\\x85");
	/* cut: by the caller's count, and by the buffer */
	stk_python_text((const uint8_t *)"abc", 3, 1, 1, out, sizeof(out));
	CHECK_STR(t, out, "abc...");
	stk_python_text((const uint8_t *)"abcdefgh", 8, 1, 0, out, 6);
	CHECK(t, strlen(out) < 6);
	stk_python_text((const uint8_t *)"abc", 3, 3, 0, out, sizeof(out));
	CHECK_STR(t, out, "");
}

static void layouts(struct test_ctx *t)
{
	struct stk_py_layout l;
	char why[256];
	uint8_t bad[sizeof(py313_debug_offsets)];

	CHECK(t, stk_py_layout_table(0x030b02f0, &l, why, sizeof(why)) == 0 && l.ts_frame == 56 && l.fr_entry == 68);
	CHECK(t, stk_py_layout_table(0x030c01f0, &l, why, sizeof(why)) == -1 && strstr(why, "3.12"));
	CHECK(t, stk_py_layout_table(0x030a0cf0, &l, why, sizeof(why)) == -1 && strstr(why, "before 3.11"));
	CHECK(t, stk_py_layout_published(0x030d00f0) && !stk_py_layout_published(0x030b02f0));
	/* a real 3.13.0 build's */
	CHECK(t, stk_py_layout_published_read(py313_debug_offsets, sizeof(py313_debug_offsets), 0x030d00f0, &l, why,
					      sizeof(why)) == 0);
	CHECK(t, l.fr_code == 0 && l.fr_previous == 8 && l.fr_instr == 56 && l.owner_boundary == 3 &&
		 l.cf_frame == STK_PY_NONE && l.str.ascii_data == 40 && l.str.compact_data == 56 && l.fr_read <= 128);
	/* another version's build, a free-threaded one, a cookie missing, an offset outside its structure */
	CHECK(t, stk_py_layout_published_read(py313_debug_offsets, sizeof(py313_debug_offsets), 0x030e00f0, &l, why,
					      sizeof(why)) == -1);
	memcpy(bad, py313_debug_offsets, sizeof(bad));
	bad[16] = 1;
	CHECK(t, stk_py_layout_published_read(bad, sizeof(bad), 0x030d00f0, &l, why, sizeof(why)) == -1 &&
		 strstr(why, "free-threaded"));
	memcpy(bad, py313_debug_offsets, sizeof(bad));
	bad[0] = 'X';
	CHECK(t, stk_py_layout_published_read(bad, sizeof(bad), 0x030d00f0, &l, why, sizeof(why)) == -1);
	memcpy(bad, py313_debug_offsets, sizeof(bad));
	bad[31 * 8 + 2] = 0x10; /* the frame's instr_ptr a megabyte out */
	CHECK(t, stk_py_layout_published_read(bad, sizeof(bad), 0x030d00f0, &l, why, sizeof(why)) == -1 &&
		 strstr(why, "do not hold"));
	memcpy(bad, py313_debug_offsets, sizeof(bad));
	memset(bad + 34 * 8, 0xff, 8); /* the code object's size: 2^64 - 1 */
	CHECK(t, stk_py_layout_published_read(bad, sizeof(bad), 0x030d00f0, &l, why, sizeof(why)) == -1);
	CHECK(t, stk_py_layout_published_read(py313_debug_offsets, 100, 0x030d00f0, &l, why, sizeof(why)) == -1);
}

/* ---- an interpreter in an image of memory, 3.11's layout ---- */

#define BASE 0x10000000ull
#define IMG (1u << 16)
#define RUNTIME (BASE + 0x0)
#define INTERP (BASE + 0x100)
#define TSTATE (BASE + 0x200)
#define TSTATE2 (BASE + 0x300)
#define CFRAME (BASE + 0x400)
#define FRAMES (BASE + 0x800) /* frame i at FRAMES + i * 0x80 */
#define CODE (BASE + 0x2000)
#define CODE2 (BASE + 0x2800)
#define NAME (BASE + 0x3000)
#define FILE_NAME (BASE + 0x3400)
#define TABLE (BASE + 0x4000)
#define HUGE_NAME (BASE + 0x5000)
#define CODE_TYPE 0x7777000ull
#define UNMAPPED 0x60000000ull

struct image {
	uint8_t mem[IMG];
	struct stk_mem_image img;
	struct stk_mem m;
	struct stk_py_layout l;
	void *proc;
};

static void put(struct image *im, uint64_t at, uint64_t v, size_t size)
{
	for (size_t i = 0; i < size; i++)
		im->mem[at - BASE + i] = (uint8_t)(v >> (8 * i));
}

static void put_str(struct image *im, uint64_t at, const char *s, uint64_t claimed_len)
{
	put(im, at + im->l.str.length, claimed_len, 8);
	put(im, at + im->l.str.state, 1u << 2 | 1u << 5 | 1u << 6, 4); /* kind 1, compact, ascii */
	memcpy(&im->mem[at - BASE + im->l.str.ascii_data], s, strlen(s));
}

/* n frames of CODE, the last one pointing back at frame back (-1: none) */
static void build(struct image *im, int n, int back)
{
	char why[128];

	if (im->proc)
		stk_runtime_python.free_proc(im->proc);
	memset(im->mem, 0, sizeof(im->mem));
	stk_py_layout_table(0x030b02f0, &im->l, why, sizeof(why));
	im->img = (struct stk_mem_image){ BASE, im->mem, sizeof(im->mem) };
	im->m = stk_mem_of_image(&im->img);
	im->proc = stk_python_proc(&im->l, RUNTIME, CODE_TYPE);
	put(im, RUNTIME + im->l.rt_interp_head, INTERP, 8);
	put(im, INTERP + im->l.is_threads_head, TSTATE, 8);
	put(im, TSTATE + im->l.ts_native_tid, 4242, 8);
	put(im, TSTATE + im->l.ts_frame, CFRAME, 8);
	put(im, CFRAME + im->l.cf_frame, FRAMES, 8);
	for (int i = 0; i < n; i++) {
		uint64_t f = FRAMES + (uint64_t)i * 0x80;

		put(im, f + im->l.fr_code, CODE, 8);
		put(im, f + im->l.fr_instr, CODE + im->l.co_code + 2 * (uint64_t)i, 8);
		put(im, f + im->l.fr_previous, i + 1 < n ? f + 0x80 : back >= 0 ? FRAMES + (uint64_t)back * 0x80 : 0, 8);
	}
	put(im, CODE + im->l.ob_type, CODE_TYPE, 8);
	put(im, CODE + im->l.co_qualname, NAME, 8);
	put(im, CODE + im->l.co_filename, FILE_NAME, 8);
	put(im, CODE + im->l.co_linetable, TABLE, 8);
	put(im, CODE + im->l.co_firstlineno, 2, 4);
	put_str(im, NAME, "Sleeper.nap", 11);
	put_str(im, FILE_NAME, "/app/f.py", 9);
	put(im, TABLE + im->l.bytes_size, sizeof(table311), 8);
	memcpy(&im->mem[TABLE - BASE + im->l.bytes_data], table311, sizeof(table311));
}

static uint64_t mark;

static size_t walk(struct image *im, struct stk_rt_cursor *c, uint64_t *out, size_t room)
{
	*c = (struct stk_rt_cursor){ .state = TSTATE };
	stk_mem_budget(&im->m, 1u << 20);
	return stk_runtime_python.walk_run(im->proc, &im->m, c, out, room, &mark);
}

static bool count_thread(void *ctx, uint32_t tid, uint64_t state)
{
	(*(int *)ctx)++;
	(void)tid;
	(void)state;
	return false;
}

/* Stops at the first thread: its id. */
static bool first_thread(void *ctx, uint32_t tid, uint64_t state)
{
	*(uint32_t *)ctx = tid;
	(void)state;
	return true;
}

static void frames_and_names(struct test_ctx *t)
{
	struct image *im = calloc(1, sizeof(*im));
	struct stk_rt_cursor c;
	uint64_t out[64];
	char name[STK_RT_NAME_MAX], file[STK_RT_NAME_MAX];
	struct stk_rt_code code;
	const char *why = NULL;
	int threads = 0;
	uint32_t first = 0;
	struct stk_rt_proc kl;

	build(im, 3, -1);
	/* 3.11: the run's mark is its _PyCFrame, known before its end is reached */
	CHECK(t, walk(im, &c, out, 64) == 6 && !c.stop && mark == CFRAME);
	CHECK(t, stk_rt_is_frame_word(out[0]) && (out[0] & STK_RT_ADDR_MASK) == CODE && stk_rt_is_aux_word(out[1]));
	CHECK(t, ((out[3] >> 32) & 0xffffff) == 1 && (uint32_t)out[3] == (uint32_t)TABLE);
	CHECK(t, stk_runtime_python.threads(im->proc, &im->m, count_thread, &threads) == 0 && threads == 1);
	/* a second thread, newest first: a search stops at it; the kernel walk starts where user space does */
	put(im, TSTATE2 + im->l.ts_native_tid, 4343, 8);
	put(im, TSTATE2 + im->l.ts_next, TSTATE, 8);
	put(im, INTERP + im->l.is_threads_head, TSTATE2, 8);
	threads = 0;
	CHECK(t, stk_runtime_python.threads(im->proc, &im->m, count_thread, &threads) == 0 && threads == 2);
	CHECK(t, stk_runtime_python.threads(im->proc, &im->m, first_thread, &first) == 0 && first == 4343);
	CHECK(t, stk_runtime_python.kernel_layout(im->proc, &kl) == 0 && kl.interps == RUNTIME + im->l.rt_interp_head &&
		 kl.is_threads == im->l.is_threads_head && kl.ts_next == im->l.ts_next && kl.ts_tid == im->l.ts_native_tid);
	put(im, INTERP + im->l.is_threads_head, TSTATE, 8);
	stk_mem_budget(&im->m, 1u << 20);
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, CODE, (uint32_t)TABLE, name, file, &code, &why) == 0);
	CHECK_STR(t, name, "Sleeper.nap");
	CHECK_STR(t, file, "/app/f.py");
	CHECK(t, stk_runtime_python.line(&code, 25) == 7 && stk_runtime_python.line(&code, STK_RT_NO_INSTR) == 2);
	free(code.table);
	/* the run ends at 3.11's entry frame: its _PyCFrame is its mark, the one before it the next run's */
	put(im, FRAMES + 0x80 + im->l.fr_entry, 1, 1);
	put(im, CFRAME + im->l.cf_previous, CFRAME + 0x40, 8);
	CHECK(t, walk(im, &c, out, 64) == 4 && c.frame == FRAMES + 0x100 && mark == CFRAME && c.cframe == CFRAME + 0x40);
	/* past the room, frames are read to the run's end (its mark), not kept */
	CHECK(t, walk(im, &c, out, 3) == 2 && mark == CFRAME);
	stk_runtime_python.free_proc(im->proc);
	free(im);
}

static void hostile(struct test_ctx *t)
{
	struct image *im = calloc(1, sizeof(*im));
	struct stk_rt_cursor c;
	uint64_t out[512];
	char name[STK_RT_NAME_MAX], file[STK_RT_NAME_MAX];
	struct stk_rt_code code = { 0 };
	const char *why = NULL;
	int threads = 0;

	/* frames in a cycle: caught, each frame kept once or a few times, never endlessly */
	build(im, 4, 1);
	size_t n = walk(im, &c, out, 512);
	CHECK(t, c.stop && strstr(c.stop, "cycle") && n >= 8 && n <= 24);
	/* a frame pointing into unmapped memory, a code object there too */
	build(im, 2, -1);
	put(im, FRAMES + 0x80 + im->l.fr_previous, UNMAPPED, 8);
	n = walk(im, &c, out, 512);
	CHECK(t, n == 4 && c.stop && strstr(c.stop, "could not be read"));
	stk_mem_budget(&im->m, 1u << 20);
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, UNMAPPED, 0, name, file, &code, &why) == -1 && why);
	/* a name of 2^39 characters: cut at STK_PY_TEXT_MAX_CHARS, never read whole */
	put_str(im, HUGE_NAME, "x", 1ull << 39);
	memset(&im->mem[HUGE_NAME - BASE + im->l.str.ascii_data], 'x', STK_PY_TEXT_MAX_CHARS);
	put(im, CODE + im->l.co_qualname, HUGE_NAME, 8);
	stk_mem_budget(&im->m, 1u << 20);
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, CODE, (uint32_t)TABLE, name, file, &code, &why) == 0);
	CHECK(t, strlen(name) == STK_PY_TEXT_MAX_CHARS + 3 && strcmp(name + STK_PY_TEXT_MAX_CHARS, "...") == 0);
	free(code.table);
	/* another code object at the address now (its line table elsewhere), not a code object, a lying table size */
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, CODE, 0x1234, name, file, &code, &why) == -1 &&
		 strstr(why, "another"));
	put(im, CODE2 + im->l.ob_type, 0x9999, 8);
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, CODE2, 0, name, file, &code, &why) == -1);
	put(im, TABLE + im->l.bytes_size, 1ull << 40, 8);
	stk_mem_budget(&im->m, 1u << 20);
	CHECK(t, stk_runtime_python.name_code(im->proc, &im->m, CODE, (uint32_t)TABLE, name, file, &code, &why) == 0 &&
		 !code.table && stk_runtime_python.line(&code, 3) == 0);
	/* threads and interpreters in cycles */
	put(im, TSTATE + im->l.ts_next, TSTATE, 8);
	put(im, INTERP + im->l.is_next, INTERP, 8);
	CHECK(t, stk_runtime_python.threads(im->proc, &im->m, count_thread, &threads) == 0 && threads <= 4);
	/* a frame whose code pointer is 0 */
	put(im, FRAMES + im->l.fr_code, 0, 8);
	n = walk(im, &c, out, 512);
	CHECK(t, n == 0 && c.stop);
	/* a budget spent: reads fail, nothing loops */
	build(im, 300, -1);
	c = (struct stk_rt_cursor){ .state = TSTATE };
	stk_mem_budget(&im->m, 10 * 72);
	n = stk_runtime_python.walk_run(im->proc, &im->m, &c, out, 512, &mark);
	CHECK(t, n < 40 && c.stop);
	/* a run deeper than one walk reads */
	build(im, 300, 299);
	n = walk(im, &c, out, 512);
	CHECK(t, n <= 512 && c.stop);
	stk_runtime_python.free_proc(im->proc);
	free(im);
}

const struct test_case python_tests[] = {
	{ "python_line_table", line_table },
	{ "python_text", text },
	{ "python_layouts", layouts },
	{ "python_frames_and_names", frames_and_names },
	{ "python_hostile", hostile },
	{ NULL, NULL },
};
