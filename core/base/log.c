#include "core/base/log.h"

#include <stdio.h>
#include <stdlib.h>

void stk_error(const char *applet, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stk%s%s: ", applet ? " " : "", applet ? applet : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
