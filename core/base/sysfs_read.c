#include "core/base/sysfs_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int stk_read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int stk_read_long(const char *path, long *value)
{
	char text[64], *end;
	int err = stk_read_text(path, text, sizeof(text));

	if (err)
		return err;
	errno = 0;
	*value = strtol(text, &end, 10);
	if (errno || end == text)
		return -EINVAL;
	return 0;
}

bool stk_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}
