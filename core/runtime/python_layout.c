/* Where CPython keeps its frames, per version: see python_layout.h. */
#include "core/runtime/python_layout.h"

#include <stdio.h>
#include <string.h>

#define MINOR(v) (((v) >> 16) & 0xff)
#define MAJOR(v) ((v) >> 24)

const char *stk_py_version_text(uint32_t version, char *buf)
{
	snprintf(buf, 16, "%u.%u", MAJOR(version), MINOR(version));
	return buf;
}

bool stk_py_layout_published(uint32_t version)
{
	return MAJOR(version) > 3 || (MAJOR(version) == 3 && MINOR(version) >= 13);
}

/*
 * 3.11 (x86_64 and arm64 alike: LP64), checked against Debian's
 * python3.11-dbg by tests/integration/test_python.sh. The current frame is
 * the thread's _PyCFrame's; the frame an eval loop began with has is_entry.
 */
static const struct stk_py_layout py311 = {
	.rt_interp_head = 40,
	.is_next = 0, .is_threads_head = 16,
	.ts_next = 8, .ts_frame = 56, .cf_frame = 8, .cf_previous = 16, .ts_native_tid = 160,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_entry = 68, .fr_read = 72,
	.owner_boundary = 0,
	.co_filename = 112, .co_qualname = 128, .co_linetable = 136, .co_firstlineno = 72, .co_code = 184,
	.ob_type = 8, .bytes_size = 16, .bytes_data = 32,
	.str = { .length = 16, .state = 32, .ascii_data = 48, .compact_data = 72 },
};

int stk_py_layout_table(uint32_t version, struct stk_py_layout *out, char *why, size_t len)
{
	char v[16];

	if (MAJOR(version) == 3 && MINOR(version) == 11) {
		*out = py311;
		out->version = version;
		return 0;
	}
	if (MAJOR(version) < 3 || (MAJOR(version) == 3 && MINOR(version) < 11))
		snprintf(why, len, "python %s: frames before 3.11 are another structure, not read",
			 stk_py_version_text(version, v));
	else
		snprintf(why, len, "python %s: no layout stk has checked (3.11 from a table, 3.13 and 3.14 from the "
			 "process); its frames are not read", stk_py_version_text(version, v));
	return -1;
}

/*
 * _Py_DebugOffsets, as each version lays it out: every field is a 64-bit
 * word after the 8-byte cookie, so a field is its word's index.
 */
struct debug_fields {
	unsigned minor;
	unsigned n_words; /* the structure's size in words */
	unsigned version, free_threaded;
	unsigned rt_size, rt_interp_head;
	unsigned is_size, is_next, is_threads_head;
	unsigned ts_size, ts_next, ts_current_frame, ts_native_tid;
	unsigned fr_size, fr_previous, fr_executable, fr_instr, fr_owner;
	unsigned co_size, co_filename, co_qualname, co_linetable, co_firstlineno, co_code;
	unsigned ob_size, ob_type;
	unsigned bytes_size, bytes_ob_size, bytes_sval;
	unsigned str_size, str_state, str_length, str_ascii_size;
};

static const struct debug_fields debug_versions[] = {
	{
		.minor = 13, .n_words = 73, .version = 1, .free_threaded = 2,
		.rt_size = 3, .rt_interp_head = 5,
		.is_size = 6, .is_next = 8, .is_threads_head = 9,
		.ts_size = 19, .ts_next = 21, .ts_current_frame = 23, .ts_native_tid = 25,
		.fr_size = 28, .fr_previous = 29, .fr_executable = 30, .fr_instr = 31, .fr_owner = 33,
		.co_size = 34, .co_filename = 35, .co_qualname = 37, .co_linetable = 38, .co_firstlineno = 39,
		.co_code = 43,
		.ob_size = 44, .ob_type = 45,
		.bytes_size = 64, .bytes_ob_size = 65, .bytes_sval = 66,
		.str_size = 67, .str_state = 68, .str_length = 69, .str_ascii_size = 70,
	},
	{
		.minor = 14, .n_words = 95, .version = 1, .free_threaded = 2,
		.rt_size = 3, .rt_interp_head = 5,
		.is_size = 6, .is_next = 8, .is_threads_head = 9,
		.ts_size = 22, .ts_next = 24, .ts_current_frame = 26, .ts_native_tid = 28,
		.fr_size = 31, .fr_previous = 32, .fr_executable = 33, .fr_instr = 34, .fr_owner = 36,
		.co_size = 39, .co_filename = 40, .co_qualname = 42, .co_linetable = 43, .co_firstlineno = 44,
		.co_code = 48,
		.ob_size = 50, .ob_type = 51,
		.bytes_size = 74, .bytes_ob_size = 75, .bytes_sval = 76,
		.str_size = 77, .str_state = 78, .str_length = 79, .str_ascii_size = 80,
	},
};

static uint64_t word_at(const uint8_t *b, unsigned index)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[(size_t)index * 8 + (unsigned)i];
	return v;
}

/* A field at off of size bytes inside an object of size limit. */
static bool inside(uint64_t off, uint64_t size, uint64_t limit)
{
	return off < limit && size <= limit - off;
}

/* What a lying _Py_DebugOffsets would get past: every offset inside its structure, every structure of a sane size. */
static const char *check(const struct stk_py_layout *l, uint64_t rt_size, uint64_t is_size, uint64_t ts_size,
			 uint64_t fr_size, uint64_t co_size, uint64_t bytes_size, uint64_t str_size, uint64_t ob_size)
{
	if (rt_size > (16u << 20) || is_size > (1u << 20) || ts_size > (1u << 16) || co_size > 4096 || fr_size > 4096 ||
	    bytes_size > 4096 || str_size > 4096 || ob_size > 4096)
		return "a structure's size is out of bounds";
	if (!inside(l->rt_interp_head, 8, rt_size) || !inside(l->is_next, 8, is_size) ||
	    !inside(l->is_threads_head, 8, is_size))
		return "the runtime or interpreter offsets are outside their structures";
	if (!inside(l->ts_next, 8, ts_size) || !inside(l->ts_frame, 8, ts_size) || !inside(l->ts_native_tid, 8, ts_size) ||
	    l->ts_frame >= 0xffff || l->ts_native_tid >= 0xffff)
		return "the thread state offsets are outside it";
	if (!inside(l->fr_code, 8, fr_size) || !inside(l->fr_previous, 8, fr_size) || !inside(l->fr_instr, 8, fr_size) ||
	    !inside(l->fr_owner, 1, fr_size) || l->fr_read > STK_PY_FRAME_READ_MAX)
		return "the frame offsets are outside it";
	if (!inside(l->co_filename, 8, co_size) || !inside(l->co_qualname, 8, co_size) ||
	    !inside(l->co_linetable, 8, co_size) || !inside(l->co_firstlineno, 4, co_size) || l->co_code > co_size)
		return "the code object offsets are outside it";
	if (!inside(l->ob_type, 8, ob_size) || !inside(l->bytes_size, 8, bytes_size) || l->bytes_data > bytes_size)
		return "the object offsets are outside them";
	if (!inside(l->str.length, 8, l->str.ascii_data) || !inside(l->str.state, 4, l->str.ascii_data) ||
	    l->str.compact_data < l->str.ascii_data || l->str.compact_data > str_size)
		return "the str offsets are outside it";
	return NULL;
}

int stk_py_layout_published_read(const uint8_t *b, size_t len, uint32_t version, struct stk_py_layout *out,
				 char *why, size_t why_len)
{
	const struct debug_fields *d = NULL;
	uint64_t fr_end = 0;
	char v[16];
	const char *bad;

	for (size_t i = 0; i < sizeof(debug_versions) / sizeof(debug_versions[0]); i++)
		if (MAJOR(version) == 3 && debug_versions[i].minor == MINOR(version))
			d = &debug_versions[i];
	if (!d) {
		snprintf(why, why_len, "python %s: no layout stk knows for its _Py_DebugOffsets (3.13 and 3.14 are "
			 "known); its frames are not read", stk_py_version_text(version, v));
		return -1;
	}
	if (len < (size_t)d->n_words * 8 || memcmp(b, "xdebugpy", 8) != 0) {
		snprintf(why, why_len, "python %s: no _Py_DebugOffsets at the start of _PyRuntime",
			 stk_py_version_text(version, v));
		return -1;
	}
	if (word_at(b, d->version) >> 16 != version >> 16) {
		snprintf(why, why_len, "python %s: its _Py_DebugOffsets say version %#llx", stk_py_version_text(version, v),
			 (unsigned long long)word_at(b, d->version));
		return -1;
	}
	if (word_at(b, d->free_threaded)) {
		snprintf(why, why_len, "python %s: a free-threaded build, whose frames stk does not read",
			 stk_py_version_text(version, v));
		return -1;
	}
	/* every value is checked below before it is used; a huge one fails the checks, never wraps */
#define FIELD(name) (word_at(b, d->name) > 0xffffffffull ? 0xffffffffu : (uint32_t)word_at(b, d->name))
	*out = (struct stk_py_layout){
		.version = version,
		.rt_interp_head = FIELD(rt_interp_head),
		.is_next = FIELD(is_next), .is_threads_head = FIELD(is_threads_head),
		.ts_next = FIELD(ts_next), .ts_frame = FIELD(ts_current_frame), .cf_frame = STK_PY_NONE,
		.cf_previous = STK_PY_NONE,
		.ts_native_tid = FIELD(ts_native_tid),
		.fr_code = FIELD(fr_executable), .fr_previous = FIELD(fr_previous), .fr_instr = FIELD(fr_instr),
		.fr_owner = FIELD(fr_owner), .fr_entry = STK_PY_NONE,
		/* 3.13's entry frame is owned by the C stack (3), 3.14's by the interpreter (3, the C stack 4) */
		.owner_boundary = 3,
		.co_filename = FIELD(co_filename), .co_qualname = FIELD(co_qualname), .co_linetable = FIELD(co_linetable),
		.co_firstlineno = FIELD(co_firstlineno), .co_code = FIELD(co_code),
		.ob_type = FIELD(ob_type), .bytes_size = FIELD(bytes_ob_size), .bytes_data = FIELD(bytes_sval),
		.str = { .length = FIELD(str_length), .state = FIELD(str_state), .ascii_data = FIELD(str_ascii_size) },
	};
	/* a compact str's characters follow PyCompactUnicodeObject, the str object less its data pointer */
	out->str.compact_data = FIELD(str_size) >= 8 ? FIELD(str_size) - 8 : 0;
#undef FIELD
	for (const uint32_t *f = &out->fr_code; f <= &out->fr_owner; f++)
		if (*f < 0xffff && *f + 8u > fr_end)
			fr_end = *f + 8u;
	out->fr_read = fr_end > STK_PY_FRAME_READ_MAX ? STK_PY_FRAME_READ_MAX + 1 : (uint32_t)fr_end;
	bad = check(out, word_at(b, d->rt_size), word_at(b, d->is_size), word_at(b, d->ts_size), word_at(b, d->fr_size),
		    word_at(b, d->co_size), word_at(b, d->bytes_size), word_at(b, d->str_size), word_at(b, d->ob_size));
	if (bad) {
		snprintf(why, why_len, "python %s: its _Py_DebugOffsets do not hold: %s", stk_py_version_text(version, v),
			 bad);
		return -1;
	}
	return 0;
}
