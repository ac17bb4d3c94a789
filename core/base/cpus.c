#include "core/base/cpus.h"

#include <errno.h>
#include <stdlib.h>

#include "core/base/grow.h"
#include "core/base/sysfs_read.h"

/* Upper bound on CPU numbers, far above any real machine, to reject garbage. */
#define STK_MAX_CPU_NUMBER 65536

int stk_cpus_parse_list(const char *text, int **cpus, size_t *n)
{
	size_t cap = 0, count = 0;
	int *out = NULL;
	const char *p = text;

	if (stk_grow((void **)&out, &cap, 1, sizeof(*out)))
		return -1;
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p || lo < 0)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				goto bad;
			p = end;
		}
		if (hi >= STK_MAX_CPU_NUMBER)
			goto bad;
		for (long c = lo; c <= hi; c++) {
			if (stk_grow((void **)&out, &cap, count + 1, sizeof(*out)))
				goto bad;
			if (count && out[count - 1] >= c)
				goto bad; /* must ascend */
			out[count++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!count)
		goto bad;
	*cpus = out;
	*n = count;
	return 0;
bad:
	free(out);
	return -1;
}

int stk_cpus_online(int **cpus, size_t *n)
{
	char text[4096];

	if (stk_read_text("/sys/devices/system/cpu/online", text, sizeof(text)))
		return -1;
	return stk_cpus_parse_list(text, cpus, n);
}
