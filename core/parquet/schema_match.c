#include "core/parquet/schema_match.h"

#include <stdio.h>
#include <string.h>

#include "core/parquet/format.h"

/* The stk type of a leaf, or -1 for one stk does not read. */
static int leaf_type(const struct stk_pq_schema_elem *e)
{
	switch (e->physical) {
	case STK_PQ_PHYS_INT32:
		if ((e->converted < 0 || e->converted == STK_PQ_CONV_INT_32) &&
		    (e->logical == 0 || e->logical == STK_PQ_LOGICAL_INTEGER))
			return STK_PQ_INT32;
		return -1;
	case STK_PQ_PHYS_INT64:
		if (e->logical == STK_PQ_LOGICAL_TIMESTAMP)
			return e->time_unit == STK_PQ_UNIT_NANOS ? STK_PQ_TIMESTAMP_NS : -1;
		if ((e->converted < 0 || e->converted == STK_PQ_CONV_INT_64) &&
		    (e->logical == 0 || e->logical == STK_PQ_LOGICAL_INTEGER))
			return STK_PQ_INT64;
		return -1;
	case STK_PQ_PHYS_BYTE_ARRAY:
		if (e->logical == STK_PQ_LOGICAL_STRING || (e->logical == 0 && e->converted == STK_PQ_CONV_UTF8))
			return STK_PQ_STRING;
		return -1;
	default:
		return -1;
	}
}

static bool named(const struct stk_pq_schema_elem *e, const char *name)
{
	return e->name_len == strlen(name) && memcmp(e->name, name, e->name_len) == 0;
}

int stk_pq_schema_match(const struct stk_pq_footer *f, const struct stk_pq_column *cols, size_t n, size_t *leaf,
			bool *optional, char *err, size_t err_len)
{
	size_t leaves = f->n_schema ? f->n_schema - 1 : 0;

	if (f->n_schema < 2 || f->schema[0].num_children < 0 || (size_t)f->schema[0].num_children != leaves) {
		snprintf(err, err_len, "not a flat table of columns (nested or empty schema)");
		return -1;
	}
	for (size_t i = 1; i < f->n_schema; i++) {
		const struct stk_pq_schema_elem *e = &f->schema[i];

		if (e->num_children > 0 || e->physical < 0) {
			snprintf(err, err_len, "a nested column (%.*s)", (int)(e->name_len > 64 ? 64 : e->name_len),
				 (const char *)e->name);
			return -1;
		}
	}
	for (size_t c = 0; c < n; c++) {
		const struct stk_pq_schema_elem *e = NULL;

		for (size_t i = 1; i < f->n_schema && !e; i++)
			if (named(&f->schema[i], cols[c].name)) {
				e = &f->schema[i];
				leaf[c] = i - 1;
			}
		if (!e && cols[c].added) {
			leaf[c] = STK_PQ_NO_LEAF;
			optional[c] = true;
			continue;
		}
		if (!e) {
			snprintf(err, err_len, "no column %s (not an stk event log, or another version of it)", cols[c].name);
			return -1;
		}
		if (leaf_type(e) != (int)cols[c].type) {
			snprintf(err, err_len, "column %s is not %s", cols[c].name, stk_pq_type_name(cols[c].type));
			return -1;
		}
		if (e->repetition != STK_PQ_REQUIRED && e->repetition != STK_PQ_OPTIONAL) {
			snprintf(err, err_len, "column %s is repeated or says no repetition", cols[c].name);
			return -1;
		}
		optional[c] = e->repetition == STK_PQ_OPTIONAL;
		if (optional[c] && !cols[c].nullable) {
			snprintf(err, err_len, "column %s may be NULL in this file; stk expects a value in every row",
				 cols[c].name);
			return -1;
		}
	}
	return 0;
}
