/*
 * Separate debug files, in the order gdb searches them: build ID first
 * (exact), then .gnu_debuglink (checked by CRC32, since the name alone can
 * match a debug file of another build).
 */
#include "core/sym/debuginfo.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/sym/elf_symbols.h"

int stk_debuginfo_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t at = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		c = crc32(c, buf, (uInt)n);
		at += n;
	}
	if (n < 0)
		return -1;
	*crc = (uint32_t)c;
	return 0;
}

static int is_same_file(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

static int open_by_build_id(const char *root, const char *build_id)
{
	char path[4096], got[129];
	int fd;

	if (strlen(build_id) < 4)
		return -1;
	snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, build_id,
		 build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (stk_elf_build_id_fd(fd, got, sizeof(got)) == 0 && strcmp(got, build_id) == 0)
		return fd;
	close(fd);
	return -1;
}

static int open_checked(const char *path, uint32_t crc, uint64_t dev, uint64_t ino)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint32_t got;

	if (fd < 0)
		return -1;
	if (!is_same_file(fd, dev, ino) && stk_debuginfo_crc32(fd, &got) == 0 && got == crc)
		return fd;
	close(fd);
	return -1;
}

int stk_debuginfo_open(const char *root, const char *path, const char *build_id,
		       const char *debuglink, uint32_t crc, uint64_t orig_dev, uint64_t orig_ino)
{
	char dir[4096], cand[8192];
	const char *slash;
	int fd;

	if (build_id && *build_id) {
		if ((fd = open_by_build_id(root, build_id)) >= 0)
			return fd;
		if (*root && (fd = open_by_build_id("", build_id)) >= 0)
			return fd;
	}
	if (!debuglink || !*debuglink || strchr(debuglink, '/') || !(slash = strrchr(path, '/')))
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(cand, sizeof(cand), "%s%s/%s", root, dir, debuglink);
	if ((fd = open_checked(cand, crc, orig_dev, orig_ino)) >= 0)
		return fd;
	snprintf(cand, sizeof(cand), "%s%s/.debug/%s", root, dir, debuglink);
	if ((fd = open_checked(cand, crc, orig_dev, orig_ino)) >= 0)
		return fd;
	snprintf(cand, sizeof(cand), "%s/usr/lib/debug%s/%s", root, dir, debuglink);
	return open_checked(cand, crc, orig_dev, orig_ino);
}
