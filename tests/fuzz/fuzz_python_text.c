/* CPython's str objects' characters (any kind, any code points) made printable text. */
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "core/runtime/python_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[STK_PY_TEXT_MAX];
	unsigned kind;
	size_t len, n;

	if (size < 3)
		return 0;
	kind = data[0] & 7;
	len = 1 + (data[1] % sizeof(out)); /* buffers of every size, down to one byte */
	n = kind ? (size - 3) / kind : size - 3;
	if (n > STK_PY_TEXT_MAX_CHARS)
		n = STK_PY_TEXT_MAX_CHARS;
	size_t w = stk_python_text(data + 3, n, kind, data[2] & 1, out, len);
	/* always terminated, inside the buffer */
	if (w >= len || out[w] != '\0' || strlen(out) != w)
		__builtin_trap();
	return 0;
}
