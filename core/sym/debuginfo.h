/* Finding the separate debug file of a stripped ELF file. */
#ifndef STK_DEBUGINFO_H
#define STK_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Opens the debug file for a binary at path (as the process sees it) under
 * root ("" for the host, "/proc/PID/root" for a process): by build ID under
 * /usr/lib/debug/.build-id, then by .gnu_debuglink next to the file, in
 * .debug/ and under /usr/lib/debug/<dir>/ (CRC32 checked). Returns an fd or -1.
 * orig_dev/orig_ino: the binary itself, never accepted as its own debug file.
 */
int stk_debuginfo_open(const char *root, const char *path, const char *build_id,
		       const char *debuglink, uint32_t crc, uint64_t orig_dev, uint64_t orig_ino);
/* CRC32 (zlib) of an fd's whole content from offset 0. 0 or -1. */
int stk_debuginfo_crc32(int fd, uint32_t *crc);

#endif
