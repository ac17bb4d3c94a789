/*
 * A navigable table, the model behind every screen of stk top: rows of
 * text cells (a numeric value beside the text where a column sorts by
 * number), sorted by one column, narrowed by a search text, with a
 * selected row and a scroll position. Rows are replaced every refresh; the
 * selection follows its row by the row's key, so it stays on the same group
 * or thread while their order changes. No terminal here: core/terminal/
 * draws it, tests drive it alone.
 */
#ifndef STK_VIEW_TABLE_H
#define STK_VIEW_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define STK_VT_MAX_COLS 16
#define STK_VT_SEARCH_LEN 64

struct stk_vt_column {
	const char *title;
	bool numeric; /* right-aligned, sorted by value, largest first */
};

struct stk_vt_row {
	char *key;                       /* identity across refreshes; owned, with the cells */
	char *cells[STK_VT_MAX_COLS];    /* into the same allocation as key */
	double values[STK_VT_MAX_COLS];  /* numeric columns' values */
};

struct stk_vtable {
	struct stk_vt_column cols[STK_VT_MAX_COLS];
	size_t n_cols;
	struct stk_vt_row *rows;
	size_t n_rows, cap_rows;
	size_t *shown; /* indices of rows that match the search, in sort order */
	size_t n_shown, cap_shown;
	size_t sort_col;
	bool sort_reverse;              /* the column's other order */
	char search[STK_VT_SEARCH_LEN]; /* "" shows every row */
	size_t sel, top;                /* selected and first drawn position in shown */
	char *sel_key;                  /* the selected row's key, kept across refreshes */
};

/* A table with these columns (titles must outlive it), sorted by sort_col. */
void stk_vtable_init(struct stk_vtable *t, const struct stk_vt_column *cols, size_t n_cols, size_t sort_col);
void stk_vtable_free(struct stk_vtable *t);
/* Empties the rows, before a refresh adds them again; the selection's key is kept. */
void stk_vtable_clear(struct stk_vtable *t);
/* Appends a row: n_cols cells (NULL: ""), values for numeric columns (may be NULL). 0, or -1 out of memory. */
int stk_vtable_add(struct stk_vtable *t, const char *key, const char *const *cells, const double *values);
/* Sorts and searches the rows added since stk_vtable_clear, and finds the selected row again. 0, or -1. */
int stk_vtable_finish(struct stk_vtable *t);
/* Moves the selection by delta rows (clamped), and keeps it in a window of rows_visible rows. */
void stk_vtable_move(struct stk_vtable *t, long delta, size_t rows_visible);
/* The first or last row. */
void stk_vtable_home(struct stk_vtable *t, bool end, size_t rows_visible);
/* Sorts by col; the same column again reverses the order. 0, or -1. */
int stk_vtable_sort(struct stk_vtable *t, size_t col);
/* Shows only rows with text in a cell (case-insensitive); "" shows all. 0, or -1. */
int stk_vtable_search(struct stk_vtable *t, const char *text);
/* The selected row, or NULL when none is shown. */
const struct stk_vt_row *stk_vtable_selected(const struct stk_vtable *t);
/* The i-th shown row (0: the first in order). */
const struct stk_vt_row *stk_vtable_shown(const struct stk_vtable *t, size_t i);

#endif
