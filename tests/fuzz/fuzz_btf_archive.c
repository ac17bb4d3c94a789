/* The embedded BTF archive: header, entry table, strings, zlib data. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "core/btf/btf_archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stk_btf_archive a;
	struct stk_btf_key key;
	char err[256], text[512];
	uint32_t found;

	if (stk_btf_archive_parse(data, size, &a, err, sizeof(err)))
		return 0;
	for (uint32_t i = 0; i < a.count && i < 16; i++) {
		unsigned char *btf;
		size_t len;

		if (stk_btf_archive_key(&a, i, &key, NULL))
			continue;
		stk_btf_key_format(&key, text, sizeof(text));
		stk_btf_archive_find(&a, &key, &found);
		if (stk_btf_archive_extract(&a, i, &btf, &len, err, sizeof(err)) == 0)
			free(btf);
	}
	return 0;
}
