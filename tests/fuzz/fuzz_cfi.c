/*
 * libFuzzer target for the CFI path (core/unwind/unwind_dwarf.c): the input
 * is an ELF image, reported as one module mapped at a fixed address, and a
 * synthetic stack (the input's last bytes) is unwound through its
 * .eh_frame/.debug_frame from a pc inside its first executable segment.
 * Build (clang, host libdw/libelf):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_cfi.c \
 *     core/unwind/unwind_dwarf.c core/unwind/mapping.c core/unwind/cfi_*.c core/base/grow.c -ldw -lelf -lz -o fuzz_cfi
 *   ./fuzz_cfi -max_total_time=60 CORPUS_DIR   (seed it with a few ELF files)
 */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unwind/unwind_dwarf.h"
#include "one_process.h"
#include "core/unwind/cfi_guard.h"

#define MAP_START 0x400000ULL
#define STACK_BYTES 512

struct image {
	Elf *elf;
	uint64_t exec_offset, exec_size;
	struct stk_cfi_guard guard;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = { 0 };
	uint64_t regs[17] = { 0 }, ips[64];
	uint8_t stack[STACK_BYTES] = { 0 };
	size_t phnum, n = size < STACK_BYTES ? size : STACK_BYTES;
	char *copy;

	if (size < 64 || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	memcpy(stack, data + size - n, n);
	elf_version(EV_CURRENT);
	im.elf = elf_memory(copy, size);
	if (im.elf && elf_getphdrnum(im.elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && !im.exec_size; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(im.elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    ph.p_filesz && ph.p_filesz < (1ULL << 32)) {
				im.exec_offset = ph.p_offset;
				im.exec_size = (ph.p_filesz + 4095) & ~4095ULL;
			}
		}
	}
	/* As the applets: libdw runs only CFI the guard lets through. */
	if (im.exec_size && stk_cfi_guard_scan(im.elf, &im.guard) == 0) {
		/* the image's guard, scanned above: the file's, as the file cache's would be */
		struct stk_file file = { .elf = im.elf, .fd = -1, .cfi_guard = im.guard, .cfi_scanned = true };
		struct stk_mapping map = { MAP_START, MAP_START + im.exec_size, im.exec_offset, "fuzz", &file,
					   STK_MAPPING_FILE, false, false };
		struct one_process table = { { .pid = 1, .maps = &map, .n_maps = 1 } };
		struct stk_unwind_source us = one_process_source(&table);
		struct stk_unwinder *u = stk_unwinder_new(&us);
		uint8_t how[64];
		struct stk_unwind_result r = { .ips = ips, .how = how, .max = 64 };

		/* pc somewhere in the executable mapping, chosen by the input. */
		regs[16] = MAP_START + (data[0] | (uint64_t)data[1] << 8 | (uint64_t)data[2] << 16) % im.exec_size;
		regs[7] = 0x7ffff000ULL;
		regs[6] = regs[7] + (data[3] % 64) * 8;
		struct stk_unwind_input in = { .pid = 1, .tid = 1,
						.regs = regs, .n_regs = 17, .sp = regs[7], .stack = stack, .stack_len = sizeof(stack) };
		if (u) {
			stk_unwind(u, &in, &r);
			if (!r.stop || r.n > r.max)
				abort();
		}
		stk_unwinder_free(u);
		one_process_end(&table);
	}
	stk_cfi_guard_free(&im.guard);
	if (im.elf)
		elf_end(im.elf);
	free(copy);
	return 0;
}
