/*
 * What the timeline formats (speedscope, trace) share, for core/output/ only:
 * JSON strings, each stack's frame names root first (as folded output names
 * them), and a thread's intervals and spans walked as properly nested
 * opens and closes, which both formats require.
 */
#ifndef STK_OUTPUT_TIMELINE_H
#define STK_OUTPUT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output/output_internal.h"
#include "core/stack/timeline.h"

/* s as a JSON string with its quotes; bytes that are not UTF-8 become U+FFFD. */
void stk_json_string(struct stk_buf *b, const char *s);
/* ns as microseconds with three decimals ("12.345"), as trace events want them. */
void stk_json_us(struct stk_buf *b, int64_t ns);

/* Every stack's frame names, root first (the task left out). */
struct stk_tl_names {
	char *text;      /* the names, NUL-separated */
	size_t *offset;  /* name j of stack i: text + offset[first[i] + j] */
	size_t *first;   /* n_stacks + 1 entries: stack i has first[i + 1] - first[i] names */
};
int stk_tl_names_build(struct stk_tl_names *n, const struct stk_timeline *tl, const struct stk_output_opts *o);
void stk_tl_names_free(struct stk_tl_names *n);
static inline size_t stk_tl_depth(const struct stk_tl_names *n, uint32_t stack)
{
	return stack == STK_TIMELINE_NONE ? 0 : n->first[stack + 1] - n->first[stack];
}
static inline const char *stk_tl_name(const struct stk_tl_names *n, uint32_t stack, size_t j)
{
	return n->text + n->offset[n->first[stack] + j];
}

/* What one of t's samples stands for: its track's kind's, or the timeline's (0: an instant). */
static inline int64_t stk_tl_sample_ns(const struct stk_timeline *tl, const struct stk_timeline_thread *t)
{
	return t->track ? t->sample_ns : tl->sample_ns;
}

/*
 * Walks the thread's intervals and spans in time order as a well-nested
 * tree: an item starting inside another is cut at that one's end; items
 * that are left empty are skipped. open(ctx, ev, start) and close(ctx, ev,
 * end) come in nesting order with times that never go back; samples are
 * passed to sample(ctx, ev) in between, in time order (NULL: skipped).
 * 0, or -1 when out of memory or a callback failed.
 */
struct stk_tl_walk {
	int (*open)(void *ctx, const struct stk_timeline_event *ev, int64_t start);
	int (*close)(void *ctx, const struct stk_timeline_event *ev, int64_t end);
	int (*sample)(void *ctx, const struct stk_timeline_event *ev);
	void *ctx;
};
int stk_tl_walk_thread(const struct stk_timeline_thread *t, const struct stk_tl_walk *w);

#endif
