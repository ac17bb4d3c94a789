/*
 * Checking a file's schema against the columns a reader expects. Internal
 * to core/parquet/.
 */
#ifndef STK_PQ_SCHEMA_MATCH_H
#define STK_PQ_SCHEMA_MATCH_H

#include <stddef.h>

#include "core/parquet/footer.h"
#include "core/parquet/parquet_schema.h"

/* leaf[i] of an added column (struct stk_pq_column) the file does not have. */
#define STK_PQ_NO_LEAF ((size_t)-1)

/*
 * For each expected column, the index of the file's leaf column that holds
 * it (leaf[i]; STK_PQ_NO_LEAF for an added column the file lacks) and
 * whether the file's column is optional. The file's schema must be flat: a
 * root whose children are all leaves. 0, or -1 with a one-line reason in err.
 */
int stk_pq_schema_match(const struct stk_pq_footer *f, const struct stk_pq_column *cols, size_t n, size_t *leaf,
			bool *optional, char *err, size_t err_len);

#endif
