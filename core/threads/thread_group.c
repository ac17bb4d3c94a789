#include "core/threads/thread_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"

struct stk_group {
	struct stk_group_spec spec;
	struct stk_group_row *rows;
	size_t n, cap;
	struct stk_key_index index; /* over rows, by their values */
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

/* The values' hash, each folded in. */
static uint64_t hash_values(char *const *values, size_t n)
{
	uint64_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = stk_hash_u64(h ^ stk_hash_bytes(values[i], strlen(values[i])));
	return h;
}

static uint64_t row_hash(const void *ctx, size_t r)
{
	const struct stk_group *g = ctx;

	return hash_values(g->rows[r].values, g->spec.n);
}

static bool same_values(char *const *a, char *const *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

int stk_group_add(struct stk_group *g, const struct stk_thread *t)
{
	char bufs[STK_GROUP_MAX_COLS][STK_THREAD_FILE_LEN];
	char *values[STK_GROUP_MAX_COLS];

	for (size_t i = 0; i < g->spec.n; i++) {
		stk_tcol_value(t, g->spec.cols[i], bufs[i], sizeof(bufs[i]));
		values[i] = bufs[i];
	}
	struct stk_key_probe probe;
	for (int64_t r = stk_key_index_first(&g->index, hash_values(values, g->spec.n), &probe); r >= 0;
	     r = stk_key_index_next(&g->index, &probe))
		if (same_values(g->rows[r].values, values, g->spec.n)) {
			g->rows[r].count++;
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
	if (stk_key_index_put(&g->index, &probe, g->n + 1, row_hash, g)) {
		for (size_t i = 0; i < g->spec.n; i++)
			free(row->values[i]);
		free(row->values);
		return -1;
	}
	g->n++;
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
	/* the index points at the old order now; it has room for every row already, so this cannot fail */
	stk_key_index_rebuild(&g->index, g->n, row_hash, g);
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
	stk_key_index_clear(&g->index);
}

void stk_group_free(struct stk_group *g)
{
	if (!g)
		return;
	stk_group_reset(g);
	free(g->rows);
	stk_key_index_free(&g->index);
	free(g);
}
