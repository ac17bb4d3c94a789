/*
 * Where libdw finds a file's CFI, found the same way: .eh_frame as
 * dwarf_getcfi_elf takes it (the first section of that name, with an
 * .eh_frame_hdr section before it; else PT_GNU_EH_FRAME, whose .eh_frame
 * runs to the end of the file), and every section dwarf_begin_elf could take
 * for .debug_frame (.zdebug_frame, .dwo and LTO names too), inflated as
 * libdw inflates them. The CFI guard checks what this hands it.
 */
#ifndef STK_CFI_SECTIONS_H
#define STK_CFI_SECTIONS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/unwind/cfi_encoded.h"

/* One section of CFI as libdw will hold it. */
struct stk_cfi_source {
	Elf_Data *data;
	struct stk_cfi_section sec;
	/* .eh_frame_hdr's search table, when libdw uses it (n > 0): n pairs of encoding
	 * values, (initial location, FDE address), read from entries as libdw reads them */
	struct stk_cfi_section table;
	uint8_t table_encoding;
	size_t n;
};

/* false: stop (the caller has seen enough). */
typedef bool (*stk_cfi_source_fn)(void *ctx, const struct stk_cfi_source *src);

/*
 * Calls fn for each CFI section of e that libdw could use. NULL, or why
 * the file must be refused whole (a section, or a file read whole, over
 * STK_CFI_MAX_SECTION_BYTES: libdw would read all of it).
 */
const char *stk_cfi_sources(Elf *e, stk_cfi_source_fn fn, void *ctx);

#endif
