/* ELF files of other users' processes: symbols, load segments, build ID, debuglink. */
#include "tests/fuzz/fuzz.h"

#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "core/sym/elf_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stk_elf_file f;
	char why[128], build_id[129];
	uint64_t vaddr;
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	stk_elf_build_id_fd(fd, build_id, sizeof(build_id));
	if (stk_elf_file_from_fd(fd, &f, why, sizeof(why)) == 0) {
		for (size_t i = 0; i < f.n_syms; i++)
			stk_elf_lookup(&f, f.syms[i].addr + f.syms[i].size / 2);
		for (size_t i = 0; i < f.n_loads; i++)
			stk_elf_offset_to_vaddr(&f, f.loads[i].offset, &vaddr);
		stk_elf_file_release(&f);
	}
	/* The vDSO path: the same parser over an in-memory image (a copy: libelf may convert it in place). */
	unsigned char *copy = malloc(size ? size : 1);
	if (copy) {
		memcpy(copy, data, size);
		if (stk_elf_file_from_memory(copy, size, &f, why, sizeof(why)) == 0)
			stk_elf_file_release(&f);
		free(copy);
	}
	close(fd);
	return 0;
}
