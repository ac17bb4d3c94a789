/*
 * The resolved-stack model every stack applet hands to core/output: unique
 * (task, kernel stack, user stack) tuples with a weight. Produced by the
 * applets from BPF maps through core/session/stack_resolver.c and core/sym/,
 * consumed by core/output/.
 */
#ifndef STK_STACK_H
#define STK_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A function inlined at a frame's address, with the source line in it (DWARF). */
struct stk_inline_frame {
	const char *symbol;
	const char *file; /* NULL when unknown */
	uint32_t line;
};

/* One frame, already symbolized. All strings are owned by the producer. */
struct stk_frame {
	const char *symbol;     /* demangled name; NULL when there is no symbol ("[unknown]") */
	const char *module;     /* user: path of the mapped file ("[vdso]", "[perf-map]" too);
				   kernel: NULL for vmlinux, module name (e.g. "ext4") otherwise */
	const char *build_id;   /* hex GNU build ID of module's file, or NULL */
	uint64_t address;       /* runtime address */
	uint64_t symbol_offset; /* address - symbol start, when symbol != NULL */
	uint64_t map_start;     /* user frames: the mapping holding address (for pprof) */
	uint64_t map_end;
	uint64_t map_offset;    /* file offset of map_start */
	bool kernel;
	const char *found_by;   /* user frames unwound in user space: "regs", "cfi" or "fp"; else NULL */
	bool main_exe;          /* user: module is the process's executable (pprof's first mapping) */
	bool synthetic;         /* symbol is "module+0xSTART" made from CFI, not a symbol table's */
	/* From DWARF, when the file has it: the functions inlined at address, innermost
	 * first (symbol is the function they were inlined into), and the source line in
	 * symbol (the call site of inlined[n_inlined - 1] when there are inlined frames). */
	const struct stk_inline_frame *inlined;
	size_t n_inlined;
	const char *file;
	uint32_t line;
};

/* One unique stack with its weight. Frame arrays are leaf first. */
struct stk_stack {
	uint32_t pid; /* thread group id, as the user knows "PID" */
	uint32_t tid;
	char comm[16];
	uint64_t value; /* samples, events or microseconds, per stk_report.value_unit */
	const struct stk_frame *kernel;
	size_t n_kernel;
	const struct stk_frame *user;
	size_t n_user;
	/* The stack was requested but could not be captured (stack map full,
	 * collision, fault): printed as "[Missed Kernel Stack]" / "[Missed User Stack]". */
	bool kernel_missing;
	bool user_missing;
	const char *unwind_stop; /* DWARF unwinding: why the user chain ended (shown with -v); else NULL */
	const char *span;        /* from an event log: the span label its events had (pprof label); else NULL */
	uint32_t type;           /* which of the report's value types value is (0 in a report of one) */
	uint64_t base;           /* a difference (stk_report.diff): the weight in the base, value the one compared */
};

/* What a value measures: a pprof sample type with its unit, e.g. "rss" in "bytes". */
struct stk_value_type {
	const char *type;
	const char *unit;
};

struct stk_report {
	const struct stk_stack *stacks;
	size_t n_stacks;
	const char *value_type; /* pprof sample type, e.g. "samples", "count", "offcpu" */
	const char *value_unit; /* "count" or "microseconds" */
	const char *period_type; /* e.g. "cpu"; NULL when the report has no period */
	const char *period_unit; /* e.g. "nanoseconds" */
	int64_t period;          /* e.g. 1e9 / sampling frequency */
	int64_t time_nanos;      /* capture start, Unix epoch nanoseconds */
	int64_t duration_nanos;  /* capture length */
	const char *title;       /* flame graph title, e.g. "stk profile -F 49" */
	/* Reports whose stacks weigh different things (stk resources): each stack's
	 * value is of types[stack.type]; every format keeps them apart. NULL: one
	 * type, value_type and value_unit. */
	const struct stk_value_type *types;
	size_t n_types;
	/* The formats drawn over time (speedscope, trace): the recording per thread
	 * (core/stack/timeline.h); NULL for the others, which print stacks. */
	const struct stk_timeline *timeline;
	/* A difference of two recordings or windows (stk report --base): each stack's value against its
	 * base; folded prints both (as difffolded), svg colours growth and shrink, pprof the difference. */
	bool diff;
};

/* The value type of index i (value_type/value_unit when the report has no types). */
static inline struct stk_value_type stk_report_type(const struct stk_report *r, uint32_t i)
{
	if (r->types && i < r->n_types)
		return r->types[i];
	return (struct stk_value_type){ r->value_type ? r->value_type : "samples", r->value_unit ? r->value_unit : "count" };
}

/* How many value types the report's stacks have (at least 1). */
static inline size_t stk_report_n_types(const struct stk_report *r)
{
	return r->types && r->n_types ? r->n_types : 1;
}

#endif
