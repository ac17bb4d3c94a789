/* /proc/PID/maps lines (paths in them are chosen by the process). */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/sym/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct stk_map_entry *e = malloc(sizeof(*e));

	if (text && e) {
		memcpy(text, data, size);
		text[size] = '\0';
		for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			stk_maps_parse_line(line, e);
	}
	free(text);
	free(e);
	return 0;
}
