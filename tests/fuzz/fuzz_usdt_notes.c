/* .note.stapsdt of binaries stackcount attaches USDT probes to. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

#include "core/base/name_list.h"
#include "core/probe/usdt_notes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stk_name_match any;
	struct stk_name_list out = { 0 };
	char path[64], err[256];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (stk_name_match_init(&any, "*", false, err, sizeof(err)) == 0) {
		stk_usdt_probes(path, NULL, &any, &out, err, sizeof(err));
		stk_name_list_free(&out);
		stk_name_match_free(&any);
	}
	close(fd);
	return 0;
}
