/* Finding the separate debug file of a stripped ELF file. */
#ifndef STK_DEBUGINFO_H
#define STK_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Debug files bigger than this are not read (nor their CRC computed). */
#define STK_DEBUGINFO_MAX_SIZE (4ull << 30)

/*
 * Opens the debug file for a binary at path (as the process sees it) under
 * root ("" for the host, "/proc/PID/root" for a process): by build ID under
 * /usr/lib/debug/.build-id, then by .gnu_debuglink next to the file, in
 * .debug/ and under /usr/lib/debug/<dir>/ (CRC32 checked). Returns an fd or -1.
 * orig_dev/orig_ino: the binary itself, never accepted as its own debug file.
 * Only regular files owned by owner (the binary's owner) or root qualify;
 * nothing is resolved outside root (core/base/untrusted_file.h).
 */
int stk_debuginfo_open(const char *root, const char *path, uid_t owner, const char *build_id,
		       const char *debuglink, uint32_t crc, uint64_t orig_dev, uint64_t orig_ino);
/* CRC32 (zlib) of an fd's content from offset 0 up to its size at the call. 0 or -1. */
int stk_debuginfo_crc32(int fd, uint32_t *crc);

#endif
