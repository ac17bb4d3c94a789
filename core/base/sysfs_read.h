/* Small readers for /proc and /sys files. */
#ifndef STK_SYSFS_READ_H
#define STK_SYSFS_READ_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a file holding one integer (a sysctl). 0 on success. */
int stk_read_long(const char *path, long *value);
/* Reads up to len-1 bytes of a file, NUL-terminated, trailing newline removed. */
int stk_read_text(const char *path, char *buf, size_t len);
bool stk_path_exists(const char *path);

#endif
