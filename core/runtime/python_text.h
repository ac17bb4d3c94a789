/*
 * CPython's str objects, read from another process as text stk may print:
 * a name or a file name, bounded in length, as UTF-8 with every control
 * character, backslash and lone surrogate escaped (\xHH, \\, \uHHHH), so
 * what is printed is exactly what the process holds and nothing a
 * terminal, a folded line or a Parquet reader would take for something
 * else. Only compact strings are read (code objects' names are compact);
 * any other is refused.
 */
#ifndef STK_PYTHON_TEXT_H
#define STK_PYTHON_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime/proc_mem.h"

/* Characters of a name read at most; a longer one ends in "...". */
#define STK_PY_TEXT_MAX_CHARS 512
/* Bytes the text of one name may take (every character escaped at worst: 10 bytes each, "..." and NUL). */
#define STK_PY_TEXT_MAX (STK_PY_TEXT_MAX_CHARS * 10 + 8)

/* Where a str object keeps what is read of it (PyASCIIObject, PyCompactUnicodeObject). */
struct stk_py_str_layout {
	uint32_t length;       /* the number of characters */
	uint32_t state;        /* the state bits: kind in bits 2-4, compact bit 5, ascii bit 6 */
	uint32_t ascii_data;   /* a compact ASCII string's characters */
	uint32_t compact_data; /* any other compact string's */
};

/*
 * n characters of kind bytes each (1: Latin-1, 2: UCS-2, 4: UCS-4, little
 * endian) at data into out (len > 0 bytes, NUL-terminated), escaped as
 * above; more: the string has characters past these ("..." follows).
 * Returns the bytes written before the NUL.
 */
size_t stk_python_text(const uint8_t *data, size_t n, unsigned kind, int more, char *out, size_t len);

/* The str object at addr into out (STK_PY_TEXT_MAX bytes). 0, or -1 when it is not a readable compact str. */
int stk_python_str(struct stk_mem *m, const struct stk_py_str_layout *l, uint64_t addr, char *out, size_t len);

#endif
