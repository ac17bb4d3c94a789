/* /tmp/perf-PID.map files JITs (and anyone who can write /tmp) write. */
#include "tests/fuzz/fuzz.h"

#include "core/sym/perf_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	struct stk_perf_map *m;
	const char *name;
	uint64_t off;

	if (fd < 0)
		return 0;
	m = stk_perf_map_parse_fd(fd, STK_PERF_MAP_MAX_SIZE);
	close(fd);
	/* Lookups at addresses the input itself names (its first bytes), and at the edges. */
	for (size_t i = 0; m && i + 8 <= size && i < 64; i += 8) {
		uint64_t addr = 0;
		for (int b = 0; b < 8; b++)
			addr = addr << 8 | data[i + b];
		stk_perf_map_lookup(m, addr, &name, &off);
	}
	stk_perf_map_lookup(m, 0, &name, &off);
	stk_perf_map_lookup(m, UINT64_MAX, &name, &off);
	stk_perf_map_free(m);
	return 0;
}
