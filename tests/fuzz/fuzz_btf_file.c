/* --btf FILE: the check that tells BTF (raw or inside an ELF file) from anything else. */
#include "tests/fuzz/fuzz.h"

#include <libelf.h>
#include <stdio.h>

#include "core/btf/btf_file_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[256];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	stk_btf_file_check(path, why, sizeof(why));
	close(fd);
	return 0;
}
