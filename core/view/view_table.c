/* A navigable table (view_table.h): sorted, searched, with a selection that follows its row. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/view/view_table.h"

void stk_vtable_init(struct stk_vtable *t, const struct stk_vt_column *cols, size_t n_cols, size_t sort_col)
{
	memset(t, 0, sizeof(*t));
	t->n_cols = n_cols < STK_VT_MAX_COLS ? n_cols : STK_VT_MAX_COLS;
	memcpy(t->cols, cols, t->n_cols * sizeof(*cols));
	t->sort_col = sort_col < t->n_cols ? sort_col : 0;
}

void stk_vtable_clear(struct stk_vtable *t)
{
	for (size_t i = 0; i < t->n_rows; i++)
		free(t->rows[i].key);
	t->n_rows = 0;
	t->n_shown = 0;
}

void stk_vtable_free(struct stk_vtable *t)
{
	stk_vtable_clear(t);
	free(t->rows);
	free(t->shown);
	free(t->sel_key);
	memset(t, 0, sizeof(*t));
}

int stk_vtable_add(struct stk_vtable *t, const char *key, const char *const *cells, const double *values)
{
	size_t len[STK_VT_MAX_COLS], total = strlen(key) + 1;

	if (stk_grow((void **)&t->rows, &t->cap_rows, t->n_rows + 1, sizeof(*t->rows)))
		return -1;
	for (size_t c = 0; c < t->n_cols; c++) {
		len[c] = cells[c] ? strlen(cells[c]) : 0;
		total += len[c] + 1;
	}
	/* the key and the cells in one allocation: one owner, freed by the key */
	char *p = malloc(total);
	if (!p)
		return -1;
	struct stk_vt_row *r = &t->rows[t->n_rows++];
	memset(r, 0, sizeof(*r));
	r->key = p;
	p = stpcpy(p, key) + 1;
	for (size_t c = 0; c < t->n_cols; c++) {
		r->cells[c] = p;
		memcpy(p, cells[c] ? cells[c] : "", len[c]);
		p[len[c]] = '\0';
		p += len[c] + 1;
		r->values[c] = values ? values[c] : 0;
	}
	return 0;
}

struct sort_item {
	const struct stk_vtable *t;
	size_t row;
};

static int compare_rows(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	const struct stk_vtable *t = x->t;
	const struct stk_vt_row *rx = &t->rows[x->row], *ry = &t->rows[y->row];
	size_t c = t->sort_col;
	int d;

	if (t->cols[c].numeric) /* largest first */
		d = rx->values[c] < ry->values[c] ? 1 : rx->values[c] > ry->values[c] ? -1 : 0;
	else
		d = strcmp(rx->cells[c], ry->cells[c]);
	if (t->sort_reverse)
		d = -d;
	/* ties in a stable order, so rows of equal value do not swap places every refresh */
	return d ? d : strcmp(rx->key, ry->key);
}

static bool matches(const struct stk_vtable *t, const struct stk_vt_row *r)
{
	if (!t->search[0])
		return true;
	for (size_t c = 0; c < t->n_cols; c++)
		if (strcasestr(r->cells[c], t->search))
			return true;
	return false;
}

static void keep_in_window(struct stk_vtable *t, size_t rows_visible)
{
	if (!rows_visible)
		rows_visible = 1;
	if (t->sel < t->top)
		t->top = t->sel;
	else if (t->sel >= t->top + rows_visible)
		t->top = t->sel - rows_visible + 1;
	if (t->top + rows_visible > t->n_shown)
		t->top = t->n_shown > rows_visible ? t->n_shown - rows_visible : 0;
}

static void remember_selection(struct stk_vtable *t)
{
	const struct stk_vt_row *r = stk_vtable_selected(t);
	char *copy = r ? strdup(r->key) : NULL;

	if (r && !copy)
		return; /* out of memory: the old key is as good a guess */
	free(t->sel_key);
	t->sel_key = copy;
}

int stk_vtable_finish(struct stk_vtable *t)
{
	struct sort_item *items = t->n_rows ? malloc(t->n_rows * sizeof(*items)) : NULL;
	size_t n = 0;

	if (t->n_rows && !items)
		return -1;
	if (stk_grow((void **)&t->shown, &t->cap_shown, t->n_rows ? t->n_rows : 1, sizeof(*t->shown))) {
		free(items);
		return -1;
	}
	for (size_t i = 0; i < t->n_rows; i++)
		if (matches(t, &t->rows[i]))
			items[n++] = (struct sort_item){ .t = t, .row = i };
	if (n)
		qsort(items, n, sizeof(*items), compare_rows);
	size_t old_sel = t->sel;
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		t->shown[i] = items[i].row;
		if (!found && t->sel_key && strcmp(t->rows[items[i].row].key, t->sel_key) == 0) {
			t->sel = i;
			found = true;
		}
	}
	free(items);
	t->n_shown = n;
	/* The selected row is gone: stay at its place, on the row that took it. */
	if (!found)
		t->sel = old_sel < n ? old_sel : n ? n - 1 : 0;
	if (t->top > t->sel)
		t->top = t->sel;
	remember_selection(t);
	return 0;
}

void stk_vtable_move(struct stk_vtable *t, long delta, size_t rows_visible)
{
	if (!t->n_shown)
		return;
	long to = (long)t->sel + delta;
	if (to < 0)
		to = 0;
	if (to >= (long)t->n_shown)
		to = (long)t->n_shown - 1;
	t->sel = (size_t)to;
	keep_in_window(t, rows_visible);
	remember_selection(t);
}

void stk_vtable_home(struct stk_vtable *t, bool end, size_t rows_visible)
{
	stk_vtable_move(t, end ? (long)t->n_shown : -(long)t->n_shown, rows_visible);
}

int stk_vtable_sort(struct stk_vtable *t, size_t col)
{
	if (col >= t->n_cols)
		return 0;
	if (col == t->sort_col)
		t->sort_reverse = !t->sort_reverse;
	else
		t->sort_reverse = false;
	t->sort_col = col;
	return stk_vtable_finish(t);
}

int stk_vtable_search(struct stk_vtable *t, const char *text)
{
	size_t n = strlen(text);

	if (n >= sizeof(t->search))
		n = sizeof(t->search) - 1;
	memcpy(t->search, text, n);
	t->search[n] = '\0';
	return stk_vtable_finish(t);
}

const struct stk_vt_row *stk_vtable_selected(const struct stk_vtable *t)
{
	return t->sel < t->n_shown ? &t->rows[t->shown[t->sel]] : NULL;
}

const struct stk_vt_row *stk_vtable_shown(const struct stk_vtable *t, size_t i)
{
	return i < t->n_shown ? &t->rows[t->shown[i]] : NULL;
}
