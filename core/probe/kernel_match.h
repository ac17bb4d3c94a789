/*
 * Which kernel attach points a stackcount pattern names. Functions come
 * from tracefs available_filter_functions (what ftrace, and so fentry and
 * kprobe.multi, can attach to), or from /proc/kallsyms when that is not
 * readable; the kprobe blacklist is removed. Compiler clones ("f.isra.0",
 * "f.part.0"), "__pfx_"/"__cfi_" padding symbols and ".cold" parts only
 * match when named exactly (they have no BTF, so fentry cannot take them). Tracepoints come from tracefs
 * available_events. The inputs are open streams so tests can feed fixtures.
 */
#ifndef STK_KERNEL_MATCH_H
#define STK_KERNEL_MATCH_H

#include <stdio.h>

#include "core/base/name_list.h"
#include "core/probe/name_match.h"

struct stk_kfunc_sources {
	FILE *traceable; /* available_filter_functions ("name" or "name [module]" lines), or NULL */
	FILE *kallsyms;  /* /proc/kallsyms, or NULL */
	FILE *blacklist; /* debugfs kprobes/blacklist ("0xs-0xe\tname"), or NULL */
};

/*
 * Functions matching m that can be traced, sorted and unique, into ok; those
 * that match but cannot be traced (notrace, blacklisted, no ftrace entry)
 * into untraceable. 0, or -1 when out of memory or no source was given.
 */
int stk_match_kernel_functions(const struct stk_kfunc_sources *src, const struct stk_name_match *m,
			       struct stk_name_list *ok, struct stk_name_list *untraceable);

/*
 * Tracepoints "category:event" from available_events whose category matches
 * cat and event matches ev, sorted and unique. 0 or -1.
 */
int stk_match_tracepoints(FILE *available_events, const struct stk_name_match *cat,
			  const struct stk_name_match *ev, struct stk_name_list *out);
/*
 * The same from this host's tracefs (mounted if need be: before any thread
 * starts), at least one: 0, or -1 with a one-line err (cat_text, ev_text:
 * the pattern as given, for it).
 */
int stk_find_tracepoints(const struct stk_name_match *cat, const struct stk_name_match *ev, const char *cat_text,
			 const char *ev_text, struct stk_name_list *out, char *err, size_t len);

#endif
