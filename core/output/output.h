/*
 * Rendering a stk_report in every format the stack applets offer:
 *   text    bcc's multi-line shape, most frequent last
 *   folded  "comm;root;...;leaf value" for flamegraph.pl (user frames, then kernel)
 *   pmp     pt-pmp style "value frame,frame,..." leaf first, no C++ argument lists,
 *           most frequent first
 *   pprof   gzipped profile.proto
 *   svg     self-contained interactive flame graph
 * and, from the events of a recording (stk_report.timeline):
 *   speedscope  speedscope's JSON file format, a profile per thread
 *   trace       the Chrome Trace Event Format (Perfetto, chrome://tracing)
 * parquet is the event log itself (core/eventlog/): no writer here.
 */
#ifndef STK_OUTPUT_H
#define STK_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/stack/stack.h"

enum stk_format {
	STK_FORMAT_TEXT,
	STK_FORMAT_FOLDED,
	STK_FORMAT_PMP,
	STK_FORMAT_PPROF,
	STK_FORMAT_SVG,
	STK_FORMAT_PARQUET,
	STK_FORMAT_SPEEDSCOPE,
	STK_FORMAT_TRACE,
};

struct stk_output_opts {
	enum stk_format format;
	bool delimiter;      /* -d: "--" (text) / "-" (folded) between kernel and user frames */
	bool annotate;       /* -a: "_[k]" after kernel frame names (folded, svg) */
	bool verbose;        /* -v: address and module for every frame (text) */
	bool symbol_offsets; /* -s: "func+0x1a" (text) */
	bool show_tid;       /* text/folded name tasks "comm (pid/tid)" instead of "comm (pid)" */
	bool no_task;        /* text: no task line, stacks of all processes merge (stackcount without -P) */
	bool lines;          /* --lines: " at file:line" after each frame (text) */
};

/* "text", "folded", "pmp", "pprof", "svg", "parquet", "speedscope", "trace" -> format. 0, or -1 if unknown. */
int stk_format_from_name(const char *name, enum stk_format *format);
/* By extension: .txt .folded .pmp .pb.gz/.pprof .svg .parquet .speedscope.json .trace.json. 0, or -1 if unknown. */
int stk_format_from_path(const char *path, enum stk_format *format);
const char *stk_format_name(enum stk_format format);
/* The names, for usage messages: "text, folded, ... or trace". */
#define STK_FORMAT_NAMES "text, folded, pmp, pprof, svg, parquet, speedscope or trace"
/* Whether the format is made from a recording's events (parquet, speedscope, trace), not from totals. */
bool stk_format_needs_events(enum stk_format format);

/*
 * A stack's frames root first joined by ';', as folded output prints them
 * after the task (-a, -d as o says). A new string, or NULL when out of memory.
 */
char *stk_folded_stack(const struct stk_stack *s, const struct stk_output_opts *o);
/*
 * The same text into memory a caller keeps for many stacks (the event log
 * renders thousands a second): valid until the next call or
 * stk_folded_scratch_free, *len its length. NULL when out of memory.
 */
struct stk_folded_scratch;
struct stk_folded_scratch *stk_folded_scratch_new(void);
const char *stk_folded_stack_in(struct stk_folded_scratch *sc, const struct stk_stack *s,
				const struct stk_output_opts *o, size_t *len);
void stk_folded_scratch_free(struct stk_folded_scratch *sc);

/* Writes the report. 0 on success, -1 on a write or compression error. */
int stk_output_write(FILE *out, const struct stk_report *report, const struct stk_output_opts *opts);

/*
 * The format of each -o path: the --format one when given, else from the
 * extension. 0, or -1 with msg naming the path whose format is unknown.
 */
int stk_resolve_output_formats(const char *const *paths, enum stk_format *formats, size_t n,
			       bool format_given, enum stk_format format, char *msg, size_t len);

#endif
