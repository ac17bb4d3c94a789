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

#include "core/base/untrusted_file.h"
#include "core/sym/elf_symbols.h"

int stk_debuginfo_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	struct stat st;
	off_t at = 0;
	ssize_t n = 0;

	/* At most the size fstat saw: a file that keeps growing (or a device) ends there. */
	if (fstat(fd, &st))
		return -1;
	while (at < st.st_size) {
		size_t want = (size_t)(st.st_size - at) < sizeof(buf) ? (size_t)(st.st_size - at) : sizeof(buf);

		if ((n = stk_read_bounded(fd, buf, want, at)) <= 0)
			break;
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

/*
 * Debug files sit next to other users' binaries: a regular file (never a
 * FIFO or device), owned by the binary's owner or root, resolved inside the
 * process's root (root + path).
 */
static int open_debug_file(const char *root, const char *path, uid_t owner)
{
	char full[8192];
	const struct stk_untrusted_rules rules = {
		.check_owner = true, .owner = owner, .max_size = STK_DEBUGINFO_MAX_SIZE,
	};

	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full))
		return -1;
	return stk_untrusted_open(full, &rules);
}

static int open_by_build_id(const char *root, const char *build_id, uid_t owner)
{
	char path[4096], got[129];
	int fd;

	if (strlen(build_id) < 4)
		return -1;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id, build_id + 2);
	fd = open_debug_file(root, path, owner);
	if (fd < 0)
		return -1;
	if (stk_elf_build_id_fd(fd, got, sizeof(got)) == 0 && strcmp(got, build_id) == 0)
		return fd;
	close(fd);
	return -1;
}

static int open_checked(const char *root, const char *path, uid_t owner, uint32_t crc, uint64_t dev,
			uint64_t ino)
{
	int fd = open_debug_file(root, path, owner);
	uint32_t got;

	if (fd < 0)
		return -1;
	if (!is_same_file(fd, dev, ino) && stk_debuginfo_crc32(fd, &got) == 0 && got == crc)
		return fd;
	close(fd);
	return -1;
}

int stk_debuginfo_open(const char *root, const char *path, uid_t owner, const char *build_id,
		       const char *debuglink, uint32_t crc, uint64_t orig_dev, uint64_t orig_ino)
{
	char dir[4096], cand[8192];
	const char *slash;
	int fd;

	if (build_id && *build_id) {
		if ((fd = open_by_build_id(root, build_id, owner)) >= 0)
			return fd;
		if (*root && (fd = open_by_build_id("", build_id, owner)) >= 0)
			return fd;
	}
	if (!debuglink || !*debuglink || strchr(debuglink, '/') || !(slash = strrchr(path, '/')))
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(cand, sizeof(cand), "%s/%s", dir, debuglink);
	if ((fd = open_checked(root, cand, owner, crc, orig_dev, orig_ino)) >= 0)
		return fd;
	snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, debuglink);
	if ((fd = open_checked(root, cand, owner, crc, orig_dev, orig_ino)) >= 0)
		return fd;
	snprintf(cand, sizeof(cand), "/usr/lib/debug%s/%s", dir, debuglink);
	return open_checked(root, cand, owner, crc, orig_dev, orig_ino);
}
