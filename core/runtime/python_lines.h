/*
 * CPython's line table (a code object's co_linetable, 3.11 and later):
 * from an instruction's offset to its source line. The bytes come from a
 * process stk does not trust, so the decoder reads only what it was given,
 * never loops past it, and takes any byte sequence.
 *
 * The table is a run of entries, each starting with a byte whose top bit
 * is set: bits 3-6 say how the entry's location is written, bits 0-2 its
 * length in code units minus one. Forms 0-9 keep the line (a column byte
 * follows); 10-12 add 0, 1 or 2 to it (two column bytes); 13 adds a signed
 * varint (no columns); 14 adds a signed varint and has three more varints
 * (end line, columns); 15 has no location. Varints are 6-bit groups, low
 * first, bit 6 set when another follows; a signed one keeps its sign in
 * bit 0.
 */
#ifndef STK_PYTHON_LINES_H
#define STK_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line of the instruction at code unit instr of a code object whose
 * first line is first_line, through its line table (len bytes). 0 when the
 * table gives it no line (no location, or instr past the table's end).
 */
uint32_t stk_python_line(const uint8_t *table, size_t len, int32_t first_line, uint32_t instr);

#endif
