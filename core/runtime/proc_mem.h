/*
 * Another process's memory, read for its interpreter's structures: the
 * process is untrusted, so every read is bounded and may fail (unmapped,
 * changing, gone), and a budget caps the bytes one task (naming a frame,
 * walking a thread) may read whatever pointers the process holds. A reader
 * is a function, so tests and fuzzers hand the runtimes an image of their
 * own instead of a process.
 */
#ifndef STK_PROC_MEM_H
#define STK_PROC_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stk_mem {
	/* len bytes at addr into buf: 0, or -1 when not all of them could be read */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	uint64_t budget; /* bytes left to read (stk_mem_budget sets it) */
	uint64_t reads;  /* reads made, for -v */
};

/* pid's memory (process_vm_readv, the host's pid). */
struct stk_mem stk_mem_of_process(pid_t pid);
/* Sets how many bytes the next reads may take in all. */
static inline void stk_mem_budget(struct stk_mem *m, uint64_t bytes)
{
	m->budget = bytes;
}
/* len bytes at addr: 0, or -1 (unreadable, or past the budget: nothing is read then). */
int stk_mem_read(struct stk_mem *m, uint64_t addr, void *buf, size_t len);
/* One pointer-sized word (little endian, as the process keeps it). */
int stk_mem_word(struct stk_mem *m, uint64_t addr, uint64_t *out);

/* An image of memory at base (tests, fuzzers): reads inside it succeed, others fail. */
struct stk_mem_image {
	uint64_t base;
	const uint8_t *data;
	size_t len;
};
struct stk_mem stk_mem_of_image(struct stk_mem_image *img);

#endif
