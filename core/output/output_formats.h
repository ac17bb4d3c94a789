/* The writer of each output format (core/output/output.c dispatches to them). */
#ifndef STK_OUTPUT_FORMATS_H
#define STK_OUTPUT_FORMATS_H

#include <stdio.h>

#include "core/output/output.h"

int stk_output_text(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
int stk_output_folded(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
int stk_output_pmp(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
int stk_output_pprof(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
int stk_output_svg(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
/* These two draw r->timeline (-1 without one). */
int stk_output_speedscope(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);
int stk_output_trace(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);

#endif
