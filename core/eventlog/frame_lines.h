/*
 * The frames column stores each frame line once per row group. Stacks share
 * most of their frames (one kernel path under many callers, one library
 * under many call sites, one JIT address changing at the root), so a stack's
 * frames text (frames_codec.h, "stk-frames 1") goes into the file as
 * "stk-frames 2": the same header fields, then per line either the line
 * itself, new to the row group, or a reference to lines the group already
 * holds:
 *
 *   =N      the group's line N (lines are numbered from 0 as they first come)
 *   =N+C    C lines from N on
 *
 * A row group's lines are every line (not the header) of the frames values
 * before, in row order, so a reader that meets them in that order rebuilds
 * the same table. The writer side compacts, the reader side expands back to
 * "stk-frames 1" text. Frame lines start with k, u or i, never '='.
 */
#ifndef STK_FRAME_LINES_H
#define STK_FRAME_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"
#include "core/parquet/dictionary.h"

/* The writer's lines of the current row group. Zeroed, or stk_frame_lines_init. */
struct stk_frame_lines {
	struct stk_pq_dict lines;
};

void stk_frame_lines_init(struct stk_frame_lines *t);
/* Forgets the group's lines (a row group ended), keeping the memory. */
void stk_frame_lines_reset(struct stk_frame_lines *t);
void stk_frame_lines_free(struct stk_frame_lines *t);
/*
 * Appends to out the compact form of frames[0..len), "stk-frames 1" text,
 * and remembers its new lines. 0, or -1 when out of memory (out->oom, or the
 * table could not grow) or the text is not "stk-frames 1".
 */
int stk_frame_lines_compact(struct stk_frame_lines *t, const char *frames, size_t len, struct stk_buf *out);

/* The reader's lines of the current row group: where each starts and ends in bytes. */
struct stk_frame_lines_table {
	struct stk_buf bytes;
	uint64_t *spans; /* offset << 32 | length */
	size_t n, cap;
	/* bytes stk_frame_lines_expand may still write over the file's reading (see below) */
	uint64_t budget;
};

/* budget: how many bytes expansions may produce in all, a bound on what a small hostile file costs. */
void stk_frame_lines_table_init(struct stk_frame_lines_table *t, uint64_t budget);
void stk_frame_lines_table_reset(struct stk_frame_lines_table *t);
void stk_frame_lines_table_free(struct stk_frame_lines_table *t);
/*
 * Takes a frames value in row order: its new lines join the table. With out,
 * also appends its "stk-frames 1" text there (a "stk-frames 1" value is
 * copied as it is). 0, or -1 with a one-line reason (a reference outside
 * the table, the budget spent, out of memory).
 */
int stk_frame_lines_take(struct stk_frame_lines_table *t, const char *frames, size_t len, struct stk_buf *out,
			 char *err, size_t err_len);

#endif
