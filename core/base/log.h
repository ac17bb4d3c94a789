/* Error and diagnostic printing shared by all applets. */
#ifndef STK_LOG_H
#define STK_LOG_H

#include <stdarg.h>

/* Exit status for bad input, unsupported kernels and missing privileges. */
#define STK_EXIT_USAGE 2

/* Prints "stk APPLET: message" as one line on stderr. */
void stk_error(const char *applet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* stk_error(), then -1: for option parsers that stop at the first bad value. */
#define STK_USAGE_ERROR(applet, ...) (stk_error((applet), __VA_ARGS__), -1)

#endif
