/* A small report shared by the output tests: kernel + user frames, a C++
 * frame, an unresolved frame, a kernel-module frame, a missing stack, a ';'
 * in a name, and two stacks that fold identically. */
#ifndef STK_TEST_OUTPUT_FIXTURE_H
#define STK_TEST_OUTPUT_FIXTURE_H

#include "core/output/output.h"

/* 13 samples in all; the ns::Widget stack has 5. */
#define FIXTURE_TOTAL 13

void output_fixture(struct stk_report *r);
/* Two value types (rss bytes 24576 in all, block_time microseconds 400 in all), as stk resources
 * reports: write_leaf's stack has a value of each type. */
#define TYPED_RSS_TOTAL 24576
#define TYPED_BLOCK_TIME_TOTAL 400
void output_typed_fixture(struct stk_report *r);
/* A large report to exercise table growth and buffering: n stacks of
 * 4 user frames with distinct names and addresses (value 1 each). */
struct big_report {
	struct stk_report report;
	struct stk_stack *stacks;
	struct stk_frame *frames;
	char (*names)[32];
};
int big_report_init(struct big_report *b, size_t n);
void big_report_free(struct big_report *b);

/* The report rendered into a malloc'ed string; *ret gets stk_output_write's result. */
char *output_render(const struct stk_report *r, const struct stk_output_opts *o, size_t *len, int *ret);
/* Writes the report to path: stk_output_write's result, or -1 if path cannot be opened. */
int output_render_file(const struct stk_report *r, const struct stk_output_opts *o, const char *path);
/* Whole file into a malloc'ed, NUL-terminated buffer; NULL on error. */
char *output_slurp(const char *path, size_t *len);
/* 0 when "command -v NAME" finds the tool. */
int output_have_tool(const char *name);

#endif
