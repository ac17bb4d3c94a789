/* CPython's str objects as printable text: see python_text.h. */
#include "core/runtime/python_text.h"

#include <stdio.h>
#include <string.h>

/* Appends the UTF-8 of code point c (c < 0x110000, no surrogate) at out[*at]; false when it does not fit. */
static int put_utf8(char *out, size_t len, size_t *at, uint32_t c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 63));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 63));
		b[2] = (char)(0x80 | (c & 63));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | ((c >> 12) & 63));
		b[2] = (char)(0x80 | ((c >> 6) & 63));
		b[3] = (char)(0x80 | (c & 63));
		n = 4;
	}
	if (*at + n >= len)
		return 0;
	memcpy(out + *at, b, n);
	*at += n;
	return 1;
}

static int put_text(char *out, size_t len, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + n >= len)
		return 0;
	memcpy(out + *at, s, n);
	*at += n;
	return 1;
}

size_t stk_python_text(const uint8_t *data, size_t n, unsigned kind, int more, char *out, size_t len)
{
	size_t at = 0;
	int ok = 1;

	if (!len)
		return 0;
	if (kind != 1 && kind != 2 && kind != 4)
		n = 0;
	for (size_t i = 0; i < n && ok; i++) {
		uint32_t c = 0;
		char esc[12];

		for (unsigned b = kind; b-- > 0;)
			c = c << 8 | data[i * kind + b];
		if (c == '\\') {
			ok = put_text(out, len, &at, "\\\\");
		} else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)c);
			ok = put_text(out, len, &at, esc);
		} else if ((c >= 0xd800 && c < 0xe000) || c >= 0x110000) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)c);
			ok = put_text(out, len, &at, esc);
		} else {
			ok = put_utf8(out, len, &at, c);
		}
	}
	if ((more || !ok) && at + 3 < len)
		ok = put_text(out, len, &at, "...");
	out[at] = '\0';
	return at;
}

int stk_python_str(struct stk_mem *m, const struct stk_py_str_layout *l, uint64_t addr, char *out, size_t len)
{
	uint8_t chars[STK_PY_TEXT_MAX_CHARS * 4];
	uint64_t n_chars;
	uint32_t state;
	unsigned kind;
	size_t n;

	out[0] = '\0';
	if (!addr || stk_mem_word(m, addr + l->length, &n_chars) || stk_mem_read(m, addr + l->state, &state, 4))
		return -1;
	kind = (state >> 2) & 7;
	if (!(state & (1u << 5)) || (kind != 1 && kind != 2 && kind != 4) || n_chars > (1ull << 40))
		return -1;
	n = n_chars < STK_PY_TEXT_MAX_CHARS ? (size_t)n_chars : STK_PY_TEXT_MAX_CHARS;
	if (n && stk_mem_read(m, addr + ((state & (1u << 6)) ? l->ascii_data : l->compact_data), chars, n * kind))
		return -1;
	stk_python_text(chars, n, kind, n < n_chars, out, len);
	return 0;
}
