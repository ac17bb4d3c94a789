/* Checked stream writes for the output formats. */
#include "core/output/output_internal.h"

int stk_write_all(FILE *out, const void *data, size_t n)
{
	return n == 0 || fwrite(data, 1, n, out) == n ? 0 : -1;
}

int stk_finish_stream(FILE *out)
{
	int ret = fflush(out) == 0 ? 0 : -1;

	return ferror(out) ? -1 : ret;
}
