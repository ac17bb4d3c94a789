/* /tmp/perf-PID.map: symbols JIT compilers write for their anonymous code. */
#ifndef STK_PERF_MAP_H
#define STK_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file is another user's: everything about it is bounded. Lines longer
 * than MAX_LINE are skipped, names cut at MAX_NAME, entries past
 * MAX_ENTRIES dropped, and at most max_bytes of it read.
 */
#define STK_PERF_MAP_MAX_SIZE (64u << 20)
#define STK_PERF_MAP_MAX_LINE 4096
#define STK_PERF_MAP_MAX_NAME 1024
#define STK_PERF_MAP_MAX_ENTRIES (1u << 20)

struct stk_perf_map;

/*
 * Lines "START SIZE name" (hex) read from fd's current position, at most
 * max_bytes. Malformed lines are skipped; NULL only on ENOMEM.
 */
struct stk_perf_map *stk_perf_map_parse_fd(int fd, uint64_t max_bytes);
void stk_perf_map_free(struct stk_perf_map *m);
/*
 * Names another source gives (a jitdump's code loads): an empty map, entries
 * added in the order the JIT wrote them (later ones win, name cut at
 * MAX_NAME, past MAX_ENTRIES dropped), then sorted once before any lookup.
 * new: NULL on ENOMEM; add: 0, or -1 on ENOMEM.
 */
struct stk_perf_map *stk_perf_map_new(void);
int stk_perf_map_add(struct stk_perf_map *m, uint64_t start, uint64_t size, const char *name, size_t len);
void stk_perf_map_sort(struct stk_perf_map *m);
/* 0 with name and offset when an entry holds addr (the latest line wins), else -1. */
int stk_perf_map_lookup(const struct stk_perf_map *m, uint64_t addr, const char **name,
			uint64_t *offset);

#endif
