/* Scratch directories for tests that touch the file system. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

int make_scratch_dir(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/stk-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(buf) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
