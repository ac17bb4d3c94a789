/* kallsyms text (a file the operator may point --kallsyms-like options at; tests use fixtures). */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

#include "core/sym/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	struct stk_kallsyms *k;
	const char *name, *module;
	uint64_t off;

	if (!f)
		return 0;
	k = stk_kallsyms_parse(f);
	fclose(f);
	for (uint64_t addr = 0; k && addr < 0x10000; addr += 0x400)
		stk_kallsyms_lookup(k, 0xffffffff81000000ull + addr, &name, &off, &module);
	stk_kallsyms_lookup(k, UINT64_MAX, &name, &off, &module);
	stk_kallsyms_hidden(k);
	stk_kallsyms_free(k);
	return 0;
}
