/* /tmp/perf-PID.map parsing: sorted entries, binary search, later lines win. */
#include "core/sym/perf_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/floor.h"
#include "core/base/grow.h"

struct perf_ent {
	uint64_t start, size;
	uint32_t name; /* offset into names */
	uint32_t line; /* order in the file: JITs append, newer code replaces older */
};

struct stk_perf_map {
	struct perf_ent *ents;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int ent_order(const void *a, const void *b)
{
	const struct perf_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct stk_perf_map *stk_perf_map_new(void)
{
	return calloc(1, sizeof(struct stk_perf_map));
}

int stk_perf_map_add(struct stk_perf_map *m, uint64_t start, uint64_t size, const char *name, size_t nl)
{
	if (m->n >= STK_PERF_MAP_MAX_ENTRIES || !size || !nl)
		return 0;
	if (nl > STK_PERF_MAP_MAX_NAME)
		nl = STK_PERF_MAP_MAX_NAME;
	if (stk_grow((void **)&m->ents, &m->cap, m->n + 1, sizeof(*m->ents)) ||
	    stk_grow((void **)&m->names, &m->names_cap, m->names_len + nl + 1, 1))
		return -1;
	m->ents[m->n] = (struct perf_ent){ start, size, (uint32_t)m->names_len, (uint32_t)m->n };
	memcpy(m->names + m->names_len, name, nl);
	m->names[m->names_len + nl] = '\0';
	m->names_len += nl + 1;
	m->n++;
	return 0;
}

/* One line without its '\n'; malformed lines are skipped. 0, or -1 when out of memory. */
static int parse_line(struct stk_perf_map *m, char *p, size_t len)
{
	char *end;
	uint64_t start, size;
	size_t nl;

	p[len] = '\0';
	start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return 0;
	p = end + 1;
	size = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !size)
		return 0;
	p = end + 1;
	nl = strlen(p);
	while (nl && (p[nl - 1] == '\r' || p[nl - 1] == ' '))
		nl--;
	return stk_perf_map_add(m, start, size, p, nl);
}

struct stk_perf_map *stk_perf_map_parse_fd(int fd, uint64_t max_bytes)
{
	struct stk_perf_map *m = stk_perf_map_new();
	/* A line longer than the buffer is skipped up to its '\n'. */
	char *line = malloc(STK_PERF_MAP_MAX_LINE + 1), chunk[65536];
	size_t len = 0;
	uint64_t total = 0;
	int skipping = 0;

	if (!m || !line)
		goto fail;
	while (total < max_bytes) {
		size_t want = max_bytes - total < sizeof(chunk) ? (size_t)(max_bytes - total) : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (uint64_t)n;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\n') {
				if (!skipping && parse_line(m, line, len))
					goto fail;
				len = 0;
				skipping = 0;
			} else if (skipping || chunk[i] == '\0') {
				skipping = 1; /* a NUL byte: not a text line */
			} else if (len == STK_PERF_MAP_MAX_LINE) {
				skipping = 1;
			} else {
				line[len++] = chunk[i];
			}
		}
	}
	/* A last line without '\n' counts only when the whole file was read. */
	if (len && !skipping && total < max_bytes && parse_line(m, line, len))
		goto fail;
	free(line);
	stk_perf_map_sort(m);
	return m;
fail:
	free(line);
	stk_perf_map_free(m);
	return NULL;
}

void stk_perf_map_sort(struct stk_perf_map *m)
{
	if (m->n)
		qsort(m->ents, m->n, sizeof(*m->ents), ent_order);
}

void stk_perf_map_free(struct stk_perf_map *m)
{
	if (!m)
		return;
	free(m->ents);
	free(m->names);
	free(m);
}

int stk_perf_map_lookup(const struct stk_perf_map *m, uint64_t addr, const char **name,
			uint64_t *offset)
{
	const struct perf_ent *best = NULL;
	size_t at;

	if (!m)
		return -1;
	STK_FLOOR(at, m->n, i, m->ents[i].start <= addr);
	/* Entries can overlap (re-JITted code): among those holding addr, the newest line. */
	for (size_t i = at, seen = 0; i-- > 0 && seen < 64; seen++) {
		const struct perf_ent *e = &m->ents[i];

		if (addr - e->start < e->size && (!best || e->line > best->line))
			best = e;
	}
	if (!best)
		return -1;
	*name = m->names + best->name;
	*offset = addr - best->start;
	return 0;
}
