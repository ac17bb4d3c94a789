/*
 * Reading CFI values the way libdw reads them: LEB128 numbers and DW_EH_PE_*
 * encoded pointers (libdw's read_encoded_value: pcrel from the section's
 * address, textrel/datarel/funcrel as 0, aligned, indirect through the
 * section). The guard must see the same addresses and the same instruction
 * boundaries libdw will, or what it checks is not what libdw runs.
 */
#ifndef STK_CFI_ENCODED_H
#define STK_CFI_ENCODED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One CFI section's bytes as libdw holds them. */
struct stk_cfi_section {
	const uint8_t *data;
	size_t size;
	uint64_t frame_vaddr; /* what pcrel adds to the offset: the section's address (0 for .debug_frame, as in libdw) */
	uint64_t datarel;     /* what datarel adds: 0 in CFI sections (libdw's), the header's address in .eh_frame_hdr */
	unsigned address_size; /* 4 or 8: the ELF class */
	bool big_endian;
	bool eh_frame;
};

/* LEB128 at *p, below end; false when it runs past end or past 10 bytes. */
bool stk_cfi_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool stk_cfi_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);
/* An n-byte (2, 4, 8) unsigned number in the section's byte order; false past end. */
bool stk_cfi_read_fixed(const struct stk_cfi_section *s, const uint8_t **p, const uint8_t *end, unsigned n,
			uint64_t *v);
/*
 * A value in encoding at *p (inside s->data), bounded by end, as libdw's
 * read_encoded_value computes it. False where libdw fails too (unknown
 * encoding, past the end), so a value this returns is the one libdw uses.
 */
bool stk_cfi_read_encoded(const struct stk_cfi_section *s, uint8_t encoding, const uint8_t **p, const uint8_t *end,
			  uint64_t *v);
/* Bytes a value of encoding takes where its size is fixed (libdw's encoded_value_size); 0 otherwise. */
unsigned stk_cfi_encoded_size(const struct stk_cfi_section *s, uint8_t encoding);

#endif
