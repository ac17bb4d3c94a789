/*
 * jit-PID.dump: the code a JIT loaded, in the jitdump format Linux perf
 * documents (tools/perf/Documentation/jitdump-specification.txt): a header,
 * then records; each code load names a range, and an unwinding record
 * before it gives that range's .eh_frame (CPython 3.13's -X perf_jit writes
 * one per trampoline). The JIT maps the file so profilers find it.
 */
#ifndef STK_JITDUMP_H
#define STK_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "core/sym/perf_map.h"

/*
 * The file is another user's: everything about it is bounded. At most
 * MAX_SIZE bytes are read, MAX_RECORDS records looked at; names are cut as
 * a perf map's are; an unwinding record over MAX_CFI bytes is dropped, and
 * past MAX_CFI_TOTAL bytes of distinct .eh_frame (identical ones are kept
 * once) or MAX_CFI_CODE ranges with CFI, the rest have names only.
 */
#define STK_JITDUMP_MAX_SIZE (64u << 20)
#define STK_JITDUMP_MAX_RECORDS (1u << 20)
#define STK_JITDUMP_MAX_CFI (64u << 10)
#define STK_JITDUMP_MAX_CFI_TOTAL (4u << 20)
#define STK_JITDUMP_MAX_CFI_CODE (1u << 16)

/* One .eh_frame as the JIT wrote it, for code placed at address 0 (the file's CFI is position-relative). */
struct stk_jit_eh_frame {
	const uint8_t *bytes; /* the jitdump's; lives as long as it */
	size_t size;
	uint64_t addr; /* where it sits relative to its code's start: the code's size rounded up to 8 */
};

/* A loaded code range with CFI: its .eh_frame is eh_frames[eh_frame]. */
struct stk_jit_cfi_code {
	uint64_t start, size;
	uint32_t eh_frame;
};

struct stk_jitdump {
	struct stk_perf_map *names; /* every code load's name, looked up as a perf map's */
	uint16_t machine;           /* the header's ELF machine */
	struct stk_jit_cfi_code *code; /* in file order */
	size_t n_code, cap_code;
	struct stk_jit_eh_frame *eh_frames;
	size_t n_eh_frames, cap_eh_frames;
	uint8_t *cfi_bytes; /* what eh_frames point into */
	size_t cfi_len;
	/* What the parse saw (for -v and tests). */
	size_t records, loads, cfi_dropped;
	const char *stop; /* why reading ended before the file did, or NULL */
};

/*
 * Parses fd from its start, at most max_bytes (a JIT still writing leaves
 * a last record cut short: it is ignored). NULL on ENOMEM or when the file
 * is no jitdump (*why says which then). The caller frees it.
 */
struct stk_jitdump *stk_jitdump_parse_fd(int fd, uint64_t max_bytes, const char **why);
/* Parses buf (len bytes) as above: the fuzzer's and the unit tests' entry. */
struct stk_jitdump *stk_jitdump_parse(const uint8_t *buf, size_t len, const char **why);
void stk_jitdump_free(struct stk_jitdump *d);

#endif
