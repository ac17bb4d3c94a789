#include "core/parquet/numbers.h"

int stk_pq_get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t out = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (*p >= end)
			return -1;
		byte = *(*p)++;
		/* the tenth byte may only carry the top bit */
		if (shift == 63 && byte > 1)
			return -1;
		out |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = out;
			return 0;
		}
	}
	return -1;
}
