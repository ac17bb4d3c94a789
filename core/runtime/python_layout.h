/*
 * Where CPython keeps what stk reads: the runtime's interpreters, their
 * threads, each thread's frames, a frame's code object and its names and
 * line table. Before 3.13 the layout is a table per version here (3.11,
 * checked against the DWARF of Debian's python3.11-dbg by
 * tests/integration/test_python.sh); from 3.13 the interpreter publishes
 * it (_Py_DebugOffsets at the start of _PyRuntime), and stk reads it from
 * the process, knowing only how each version lays that structure out and
 * refusing one that lies (offsets outside what they index, values a build
 * of that version cannot have). A version nothing here covers is refused
 * with the reason, never guessed.
 */
#ifndef STK_PYTHON_LAYOUT_H
#define STK_PYTHON_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/runtime_types.h"
#include "core/runtime/python_text.h"

/* Bytes of a frame read at once (stk_rt_proc.fr_read's bound: the kernel walk's buffer). */
#define STK_PY_FRAME_READ_MAX STK_RT_FRAME_READ_MAX
/* Bytes of _Py_DebugOffsets read (more than any version known has). */
#define STK_PY_DEBUG_OFFSETS_MAX 1024

#define STK_PY_NONE UINT32_MAX

struct stk_py_layout {
	uint32_t version; /* PY_VERSION_HEX, e.g. 0x030b02f0 for 3.11.2 */
	/* _PyRuntimeState */
	uint32_t rt_interp_head;
	/* PyInterpreterState */
	uint32_t is_next, is_threads_head;
	/* PyThreadState; before 3.13 ts_frame is the _PyCFrame, cf_frame its current frame and cf_previous the one before */
	uint32_t ts_next, ts_frame, cf_frame, cf_previous, ts_native_tid;
	/* _PyInterpreterFrame */
	uint32_t fr_code, fr_previous, fr_instr, fr_owner;
	uint32_t fr_entry;      /* 3.11's is_entry (STK_PY_NONE after) */
	uint32_t fr_read;       /* bytes read of a frame: every field above inside */
	uint8_t owner_boundary; /* from 3.12 an owner at or above it is an eval loop's entry frame (0: none) */
	/* PyCodeObject */
	uint32_t co_filename, co_qualname, co_linetable, co_firstlineno, co_code;
	/* PyObject, PyBytesObject, str objects */
	uint32_t ob_type, bytes_size, bytes_data;
	struct stk_py_str_layout str;
};

/* "3.11" for version (buf of 16 bytes). */
const char *stk_py_version_text(uint32_t version, char *buf);
/* Whether version's layout comes from the process (_Py_DebugOffsets: 3.13 and later). */
bool stk_py_layout_published(uint32_t version);
/*
 * The layout of a version before 3.13 from the table. 0, or -1 with why: a
 * version no test checks (3.12, and before 3.11 the frames were another
 * structure).
 */
int stk_py_layout_table(uint32_t version, struct stk_py_layout *out, char *why, size_t len);
/*
 * The layout from the process's _Py_DebugOffsets (len bytes read from the
 * start of _PyRuntime) of a build of version (Py_Version in its file). 0, or
 * -1 with why: not the cookie, another version, a free-threaded build, a
 * version whose _Py_DebugOffsets stk does not know, or offsets that do not
 * fit what they index.
 */
int stk_py_layout_published_read(const uint8_t *bytes, size_t len, uint32_t version, struct stk_py_layout *out,
				 char *why, size_t why_len);

#endif
