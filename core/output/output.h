/*
 * Rendering a stk_report in the output formats. Each format is one row of
 * the table in output.c: its name, its -o suffixes, where its content comes
 * from (the totals, a recording's timeline, or the recording itself) and its
 * writer (output_formats.h). The options, every applet's help, the session's
 * choice of what to record and stk report all read that table.
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
	STK_FORMAT_COUNT,
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

/* Where a format's content comes from. */
enum stk_format_source {
	STK_FROM_TOTALS,    /* stacks and their counts, what every applet has */
	STK_FROM_TIMELINE,  /* a recording's events per thread in time order (stk_report.timeline) */
	STK_FROM_RECORDING, /* the recording itself: the event log (core/eventlog/), no writer here */
};

typedef int (*stk_format_writer)(FILE *out, const struct stk_report *r, const struct stk_output_opts *o);

/* One output format: everything outside its writer knows of it. */
struct stk_format_desc {
	const char *name;        /* --format NAME */
	const char *suffixes[3]; /* -o FILE's extensions (any case), NULL-terminated; help names the first */
	enum stk_format_source source;
	bool span_labels;        /* made from totals, yet shows --span labels: then made from the recording */
	stk_format_writer write; /* NULL for the recording */
};

/* The row of format (static), or NULL for a value outside the enum. */
const struct stk_format_desc *stk_format_desc(enum stk_format format);
/* "text", "folded", ... -> format. 0, or -1 if unknown. */
int stk_format_from_name(const char *name, enum stk_format *format);
/* By the path's extension (a suffix of the table, any case; ".svg" alone is no extension). 0, or -1 if unknown. */
int stk_format_from_path(const char *path, enum stk_format *format);
const char *stk_format_name(enum stk_format format);
/* Whether the format is made from a recording's events (its timeline, or the recording itself), not from totals. */
bool stk_format_needs_events(enum stk_format format);
/* Whether an output in the format shows --span labels (the recording, the timelines, pprof's labels). */
bool stk_format_shows_spans(enum stk_format format);

/* Sets of formats: bit 1 << f for each format f. */
typedef unsigned stk_format_set;
#define STK_FORMAT_BIT(f) (1u << (f))

/* The formats made from source. */
stk_format_set stk_formats_from(enum stk_format_source source);
/* The formats an applet offers (what its help and messages list). */
enum stk_format_offer {
	STK_OFFER_ALL,      /* a capture that can record its events: every format */
	STK_OFFER_TOTALS,   /* a capture that does not record: the formats made from totals */
	STK_OFFER_RENDERED, /* stk report: what a recording renders into, all but the recording itself */
};
stk_format_set stk_formats_offered(enum stk_format_offer offer);
bool stk_format_offered(enum stk_format format, enum stk_format_offer offer);
/* The formats that show --span labels. */
stk_format_set stk_formats_showing_spans(void);
/*
 * The formats of set in table order, each as its name or (suffix) its first
 * -o suffix, joined by sep, the last by last (", " and " or ": "text,
 * folded or svg"), into buf (cut short if len is too small). Returns buf.
 */
const char *stk_format_join(char *buf, size_t len, stk_format_set set, bool suffix, const char *sep,
			    const char *last);

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
 * The format of each -o path: the one its extension names, else the
 * --format one. 0, or -1 with msg naming the path whose format is unknown
 * or whose extension names another format than --format.
 */
int stk_resolve_output_formats(const char *const *paths, enum stk_format *formats, size_t n,
			       bool format_given, enum stk_format format, char *msg, size_t len);

#endif
