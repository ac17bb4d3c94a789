/* CPython's line tables (a code object's co_linetable), as a process holds them: any bytes. */
#include "tests/fuzz/fuzz.h"

#include "core/runtime/python_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int32_t first_line = 0;

	if (size < 4)
		return 0;
	for (int i = 0; i < 4; i++)
		first_line = (int32_t)((uint32_t)first_line << 8 | data[i]);
	/* every code unit the table can cover, and some past it */
	for (uint32_t u = 0; u < 8 * (size - 4) + 16 && u < 4096; u++)
		stk_python_line(data + 4, size - 4, first_line, u);
	stk_python_line(data + 4, size - 4, first_line, UINT32_MAX);
	return 0;
}
