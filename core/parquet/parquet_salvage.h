/*
 * Completing a Parquet file that a writer with checkpoints
 * (parquet_writer.h's opts.checkpoints) left without its footer: the
 * process was killed, the machine lost power, the disk filled. The file's
 * checkpoints (checkpoint.h) are found from its end backward and checked
 * (CRC, chain back to the start, schema, offsets inside the file); the
 * row groups before the last good one are kept, everything after it (a
 * row group cut short) is dropped, and a footer for the kept groups is
 * written there. Reads what the file holds as outside data: a file that is
 * not such a file is refused with a one-line reason, never a crash.
 *
 *   struct stk_pq_salvage s;
 *   if (stk_pq_salvage_read(fd, cols, n, &s, err, sizeof(err)) == 0)
 *       stk_pq_salvage_write(fd, &s, cols, n, kv, n_kv, err, sizeof(err));
 *   stk_pq_salvage_free(&s);
 */
#ifndef STK_PARQUET_SALVAGE_H
#define STK_PARQUET_SALVAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/parquet/parquet_schema.h"

struct stk_pq_group_meta;

/* What a file holds up to its last good checkpoint. */
struct stk_pq_salvage {
	int64_t end;           /* the file's good bytes: up to the end of that checkpoint */
	int64_t size;          /* the file's size as found */
	int64_t rows;          /* rows in the kept row groups */
	size_t n_groups, checkpoints;
	struct stk_pq_group_meta *groups; /* owned (chunks too) */
	char **kv;             /* that checkpoint's key/value metadata: pairs, owned */
	size_t n_kv;
	/* per column of cols: the smallest and largest value of the kept groups
	 * (integer columns whose groups all say) */
	int64_t *min, *max;
	bool *has_range;
	bool *present;         /* per column of cols: the file has it (an added one may be missing) */
	size_t n_present;
};

/*
 * Finds fd's last good checkpoint for a file of columns cols[0..n) (these,
 * in this order; one added since, struct stk_pq_column's `added`, may be
 * missing: the file of an older writer, which a newer one recovers). 0 (s
 * filled; free it), or -1 with err (s freed): not such a file, no good
 * checkpoint, a read failed.
 */
int stk_pq_salvage_read(int fd, const struct stk_pq_column *cols, size_t n, struct stk_pq_salvage *s, char *err,
			size_t err_len);
/* The value of key in s's metadata, or NULL. */
const char *stk_pq_salvage_metadata(const struct stk_pq_salvage *s, const char *key);
/*
 * Cuts fd's file at s->end and writes there the footer of s's row groups
 * (the columns of cols[0..n) it has, as read) with kv[0..2 n_kv) as its
 * metadata (pairs; NULL: s's own), then fsyncs. 0, or -1 with err (a write
 * failed: the file is as cut).
 */
int stk_pq_salvage_write(int fd, const struct stk_pq_salvage *s, const struct stk_pq_column *cols, size_t n,
			 const char *const *kv, size_t n_kv, char *err, size_t err_len);
void stk_pq_salvage_free(struct stk_pq_salvage *s);

#endif
