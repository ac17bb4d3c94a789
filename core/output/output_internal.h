/*
 * Helpers shared by the output formats (the files of core/output/ only):
 * frame naming, deterministic stack ordering, the root-first "path" of a
 * stack that folded output and the flame graph share, protobuf fields.
 */
#ifndef STK_OUTPUT_INTERNAL_H
#define STK_OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/byte_buf.h"
#include "core/output/output.h"
#include "core/stack/stack.h"

#define STK_UNKNOWN_SYMBOL "[unknown]"
#define STK_MISSED_KERNEL "[Missed Kernel Stack]"
#define STK_MISSED_USER "[Missed User Stack]"

/* comm as printable text: up to 16 bytes, control characters as '?'. */
void stk_put_comm(struct stk_buf *b, const struct stk_stack *s);

/* The text format's frame name: symbol (+offset with -s/-v), " [module]" for
 * kernel modules, " (0xADDR module)" with -v. */
void stk_frame_name_text(struct stk_buf *b, const struct stk_frame *f, const struct stk_output_opts *o);
/* Folded/svg name: the symbol or "[unknown]", "_[k]" after kernel frames with -a. */
void stk_frame_name_plain(struct stk_buf *b, const struct stk_frame *f, const struct stk_output_opts *o);

/* Total order over stacks: value, comm, pid, tid, then frames. */
int stk_stack_cmp(const struct stk_stack *a, const struct stk_stack *b);
/* Sorted pointers into report->stacks, ascending. NULL on allocation failure
 * (or when there are no stacks: check n_stacks first). */
const struct stk_stack **stk_sorted_stacks(const struct stk_report *r);

enum stk_elem_kind {
	STK_ELEM_TASK,
	STK_ELEM_USER,
	STK_ELEM_KERNEL,
	STK_ELEM_MISSED,
	STK_ELEM_DELIM,
	STK_ELEM_VALUE_TYPE, /* svg: the frame of one value type (reports of several) */
};

/* A stack root first as flame graphs see it: task, user root..leaf, ("-"),
 * kernel root..leaf. Names are NUL-separated in names.data at offset[i]. */
struct stk_path {
	struct stk_buf names;
	size_t *offset;
	enum stk_elem_kind *kind;
	size_t n;
	size_t cap;
};

/* 0, or -1 on allocation failure. Reuses p's storage; free with stk_path_free. */
int stk_path_build(struct stk_path *p, const struct stk_stack *s, const struct stk_output_opts *o);
void stk_path_free(struct stk_path *p);
static inline const char *stk_path_name(const struct stk_path *p, size_t i)
{
	return (const char *)p->names.data + p->offset[i];
}

/* s with control characters as '?' and every character of bad as repl. */
void stk_put_clean(struct stk_buf *b, const char *s, const char *bad, char repl);

/* A rendered line with its weight (folded, pmp). */
struct stk_line {
	char *text;
	uint64_t value;
	uint64_t base; /* a difference's: written before value ("text base value", as difffolded) */
};

/* Sorts by text and merges equal texts, summing values (duplicates are
 * freed). Returns the new count. */
size_t stk_lines_merge(struct stk_line *v, size_t n);
/* Orders by value (ascending or descending), ties by text ascending. */
void stk_lines_sort_by_value(struct stk_line *v, size_t n, bool descending);
/* Writes "value text" (value_first, pmp) or "text value" lines; frees v. */
int stk_lines_write(FILE *out, struct stk_line *v, size_t n, bool value_first, bool with_base);
void stk_lines_free(struct stk_line *v, size_t n);

/* profile.proto's fields, encoded by hand into a byte buffer (pprof). Scalar
 * fields equal to zero are omitted, as proto3 encoders do. */
void stk_pb_uint(struct stk_buf *p, uint32_t field, uint64_t v);
void stk_pb_int(struct stk_buf *p, uint32_t field, int64_t v);
void stk_pb_bytes(struct stk_buf *p, uint32_t field, const void *data, size_t n);
void stk_pb_string(struct stk_buf *p, uint32_t field, const char *s);
/* A nested message, or a packed repeated field held in sub. */
void stk_pb_sub(struct stk_buf *p, uint32_t field, const struct stk_buf *sub);

/* Writes n bytes; -1 on a short write. */
int stk_write_all(FILE *out, const void *data, size_t n);
/* Flushes and reports any earlier stream error: 0 or -1. */
int stk_finish_stream(FILE *out);

/* pmp's frame name: the symbol without its C++ parameter list, cv-qualifiers
 * and " [clone .xxx]" suffixes. Exposed for unit tests. */
void stk_pmp_strip(struct stk_buf *b, const char *symbol);

#endif
