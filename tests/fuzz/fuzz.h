/*
 * Shared bits of the libFuzzer targets (tests/fuzz/fuzz_*.c). Each target is
 * one file defining LLVMFuzzerTestOneInput over one parser of outside data;
 * the Makefile finds them by name, and tests/fuzz/corpus/TARGET/ holds its
 * seeds. A parser that wants a file gets the input in a memfd.
 */
#ifndef STK_FUZZ_H
#define STK_FUZZ_H

#include <sanitizer/allocator_interface.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* An fd holding exactly data (at offset 0), or -1. The caller closes it. */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* The largest single allocation since fuzz_largest_reset (malloc hooks, installed by the first reset). */
static inline size_t *fuzz_largest_slot(void)
{
	static size_t largest;

	return &largest;
}

static inline void fuzz_on_malloc(const volatile void *p, size_t size)
{
	(void)p;
	if (size > *fuzz_largest_slot())
		*fuzz_largest_slot() = size;
}

static inline void fuzz_on_free(const volatile void *p)
{
	(void)p;
}

static inline void fuzz_largest_reset(void)
{
	static bool hooked;

	if (!hooked)
		hooked = __sanitizer_install_malloc_and_free_hooks(fuzz_on_malloc, fuzz_on_free) != 0;
	*fuzz_largest_slot() = 0;
}

static inline size_t fuzz_largest(void)
{
	return *fuzz_largest_slot();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
