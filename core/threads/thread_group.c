#include "core/threads/thread_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_group {
	struct stk_group_spec spec;
	struct stk_group_row *rows;
	size_t n, cap;
	size_t *index; /* open addressing over rows: row + 1, 0 empty */
	size_t index_cap;
	uint64_t samples;
};

int stk_group_spec_add(struct stk_group_spec *spec, const char *text, char *err, size_t len)
{
	const char *p = text;

	for (;;) {
		size_t n = strcspn(p, ",");
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) - 1 ? n : sizeof(name) - 1), p);
		int c = stk_tcol_from_name(name);
		if (c < 0 || n >= sizeof(name)) {
			snprintf(err, len, "unknown column '%.*s' (see --list-columns)", (int)(n > 40 ? 40 : n), p);
			return -1;
		}
		bool have = false;
		for (size_t i = 0; i < spec->n; i++)
			have |= spec->cols[i] == (enum stk_tcol)c;
		if (!have) {
			if (spec->n == STK_GROUP_MAX_COLS) {
				snprintf(err, len, "at most %d columns", STK_GROUP_MAX_COLS);
				return -1;
			}
			spec->cols[spec->n++] = (enum stk_tcol)c;
		}
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

struct stk_group *stk_group_new(const struct stk_group_spec *spec)
{
	struct stk_group *g = calloc(1, sizeof(*g));

	if (g)
		g->spec = *spec;
	return g;
}

static uint64_t hash_values(char *const *values, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++) {
		for (const unsigned char *p = (const unsigned char *)values[i]; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		h = (h ^ 0x1f) * 1099511628211ULL;
	}
	return h;
}

static bool same_values(char *const *a, char *const *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static size_t *slot_for(struct stk_group *g, char *const *values, uint64_t h)
{
	size_t i = (size_t)h & (g->index_cap - 1);

	while (g->index[i] && !same_values(g->rows[g->index[i] - 1].values, values, g->spec.n))
		i = (i + 1) & (g->index_cap - 1);
	return &g->index[i];
}

static int grow_index(struct stk_group *g)
{
	size_t cap = g->index_cap ? g->index_cap * 2 : 64;
	size_t *index = calloc(cap, sizeof(*index));

	if (!index)
		return -1;
	free(g->index);
	g->index = index;
	g->index_cap = cap;
	for (size_t r = 0; r < g->n; r++)
		*slot_for(g, g->rows[r].values, hash_values(g->rows[r].values, g->spec.n)) = r + 1;
	return 0;
}

int stk_group_add(struct stk_group *g, const struct stk_thread *t)
{
	char bufs[STK_GROUP_MAX_COLS][STK_THREAD_FILE_LEN];
	char *values[STK_GROUP_MAX_COLS];

	for (size_t i = 0; i < g->spec.n; i++) {
		stk_tcol_value(t, g->spec.cols[i], bufs[i], sizeof(bufs[i]));
		values[i] = bufs[i];
	}
	if ((g->n + 1) * 2 > g->index_cap && grow_index(g))
		return -1;
	size_t *slot = slot_for(g, values, hash_values(values, g->spec.n));
	if (*slot) {
		g->rows[*slot - 1].count++;
		return 0;
	}
	if (stk_grow((void **)&g->rows, &g->cap, g->n + 1, sizeof(*g->rows)))
		return -1;
	struct stk_group_row *row = &g->rows[g->n];
	row->values = calloc(g->spec.n ? g->spec.n : 1, sizeof(char *));
	if (!row->values)
		return -1;
	for (size_t i = 0; i < g->spec.n; i++) {
		if (!(row->values[i] = strdup(values[i]))) {
			while (i-- > 0)
				free(row->values[i]);
			free(row->values);
			return -1;
		}
	}
	row->n_values = g->spec.n;
	row->count = 1;
	*slot = ++g->n;
	return 0;
}

void stk_group_end_sample(struct stk_group *g)
{
	g->samples++;
}

uint64_t stk_group_samples(const struct stk_group *g)
{
	return g->samples;
}

static int by_count_then_values(const void *a, const void *b)
{
	const struct stk_group_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	for (size_t i = 0; i < x->n_values; i++) {
		int c = strcmp(x->values[i], y->values[i]);
		if (c)
			return c;
	}
	return 0;
}

const struct stk_group_row *stk_group_sorted(struct stk_group *g, size_t *n)
{
	qsort(g->rows, g->n, sizeof(*g->rows), by_count_then_values);
	/* The index points at the old order now. */
	if (g->index)
		memset(g->index, 0, g->index_cap * sizeof(*g->index));
	for (size_t r = 0; r < g->n; r++)
		*slot_for(g, g->rows[r].values, hash_values(g->rows[r].values, g->spec.n)) = r + 1;
	*n = g->n;
	return g->rows;
}

void stk_group_reset(struct stk_group *g)
{
	for (size_t r = 0; r < g->n; r++) {
		for (size_t i = 0; i < g->spec.n; i++)
			free(g->rows[r].values[i]);
		free(g->rows[r].values);
	}
	g->n = 0;
	g->samples = 0;
	if (g->index)
		memset(g->index, 0, g->index_cap * sizeof(*g->index));
}

void stk_group_free(struct stk_group *g)
{
	if (!g)
		return;
	stk_group_reset(g);
	free(g->rows);
	free(g->index);
	free(g);
}
