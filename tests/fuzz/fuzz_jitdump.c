/*
 * jit-PID.dump files JITs write (core/sym/jitdump.c): any process can map a
 * file of that name. The input is the file; its names are looked up, and
 * each distinct CFI it gives is made into the unwinder's ELF file
 * (core/unwind/jit_cfi.c), scanned by the CFI guard, and looked up with
 * libdw at its code ranges where the guard lets it run.
 */
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "core/sym/jitdump.h"
#include "core/unwind/cfi_guard.h"
#include "core/unwind/jit_cfi.h"
#include "tests/fuzz/fuzz.h"

/* Files made per input: each is an anonymous file and an ELF image. */
#define MAX_FILES 4

static void walk_cfi(const struct stk_jitdump *d, size_t i)
{
	const struct stk_jit_eh_frame *eh = &d->eh_frames[i];
	struct stk_file f = { .fd = -1 };
	Dwarf_CFI *cfi;

	if (stk_jit_cfi_file(&f, d->machine, eh->bytes, eh->size, eh->addr))
		return;
	const struct stk_cfi_guard *g = stk_file_cfi_guard(&f);

	cfi = dwarf_getcfi_elf(f.elf);
	for (size_t c = 0; cfi && c < d->n_code && c < 64; c++) {
		Dwarf_Frame *frame;

		if (d->code[c].eh_frame != i)
			continue;
		for (uint64_t at = 0; at < d->code[c].size && at < 16; at++)
			if (!stk_cfi_guard_check(g, at) && dwarf_cfi_addrframe(cfi, at, &frame) == 0)
				free(frame);
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	stk_file_release(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	struct stk_jitdump *d;
	const char *why, *name;
	uint64_t off;

	if (fd < 0)
		return 0;
	d = stk_jitdump_parse_fd(fd, STK_JITDUMP_MAX_SIZE, &why);
	close(fd);
	if (!d)
		return 0;
	for (size_t i = 0; i < d->n_code && i < 64; i++)
		stk_perf_map_lookup(d->names, d->code[i].start + d->code[i].size / 2, &name, &off);
	stk_perf_map_lookup(d->names, 0, &name, &off);
	stk_perf_map_lookup(d->names, UINT64_MAX, &name, &off);
	for (size_t i = 0; i < d->n_eh_frames && i < MAX_FILES; i++)
		walk_cfi(d, i);
	stk_jitdump_free(d);
	return 0;
}
