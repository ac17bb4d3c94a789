/* CPython's line table decoded: see python_lines.h. */
#include "core/runtime/python_lines.h"

#include <stdbool.h>

enum form {
	FORM_ONE_LINE0 = 10, /* ... ONE_LINE2 = 12 */
	FORM_NO_COLUMNS = 13,
	FORM_LONG = 14,
	FORM_NONE = 15,
};

/* An unsigned varint at *at (at most 5 groups: 30 bits), moving *at past it; stops at end. */
static uint32_t varint(const uint8_t *t, size_t len, size_t *at)
{
	uint32_t v = 0;

	for (unsigned shift = 0; *at < len && shift < 30; shift += 6) {
		uint8_t b = t[(*at)++];

		v |= (uint32_t)(b & 63) << shift;
		if (!(b & 64))
			break;
	}
	return v;
}

static int32_t signed_varint(const uint8_t *t, size_t len, size_t *at)
{
	uint32_t u = varint(t, len, at);

	return u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

uint32_t stk_python_line(const uint8_t *t, size_t len, int32_t first_line, uint32_t instr)
{
	int64_t line = first_line;
	uint64_t start = 0;
	size_t at = 0;

	/* each entry is at least one byte, so this ends after len entries at most */
	while (at < len) {
		uint8_t head = t[at++];
		unsigned form = (head >> 3) & 15;
		uint64_t end = start + (head & 7) + 1;
		bool no_line = false;

		switch (form) {
		case FORM_NONE:
			no_line = true;
			break;
		case FORM_NO_COLUMNS:
		case FORM_LONG:
			line += signed_varint(t, len, &at);
			break;
		default:
			if (form >= FORM_ONE_LINE0 && form <= FORM_ONE_LINE0 + 2)
				line += form - FORM_ONE_LINE0;
			break;
		}
		/* the rest of the entry (columns): up to the next byte with its top bit set */
		while (at < len && !(t[at] & 128))
			at++;
		if (instr < end)
			return no_line || line <= 0 || line > UINT32_MAX ? 0 : (uint32_t)line;
		start = end;
	}
	return 0;
}
