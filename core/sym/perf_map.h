/* /tmp/perf-PID.map: symbols JIT compilers write for their anonymous code. */
#ifndef STK_PERF_MAP_H
#define STK_PERF_MAP_H

#include <stdint.h>
#include <stdio.h>

struct stk_perf_map;

/* Lines "START SIZE name" (hex). Malformed lines are skipped; NULL only on ENOMEM. */
struct stk_perf_map *stk_perf_map_parse(FILE *f);
void stk_perf_map_free(struct stk_perf_map *m);
/* 0 with name and offset when an entry holds addr (the latest line wins), else -1. */
int stk_perf_map_lookup(const struct stk_perf_map *m, uint64_t addr, const char **name,
			uint64_t *offset);

#endif
