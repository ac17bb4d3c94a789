/* The table of output formats: names, file suffixes, where each comes from, writers. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/output/output.h"
#include "core/output/output_formats.h"

/*
 * A new format is its name in enum stk_format, a row here and its writer
 * (output_formats.h, output_NAME.c): the options, the -o suffixes, every
 * applet's help and what the session records follow from the row.
 */
static const struct stk_format_desc table[] = {
	/* bcc's multi-line shape, most frequent last */
	[STK_FORMAT_TEXT] = { .name = "text", .suffixes = { ".txt" }, .write = stk_output_text },
	/* "comm;root;...;leaf value" for flamegraph.pl (user frames, then kernel) */
	[STK_FORMAT_FOLDED] = { .name = "folded", .suffixes = { ".folded" }, .write = stk_output_folded },
	/* pt-pmp's "value frame,frame,..." leaf first, no C++ argument lists, most frequent first */
	[STK_FORMAT_PMP] = { .name = "pmp", .suffixes = { ".pmp" }, .write = stk_output_pmp },
	/* gzipped profile.proto; a --span label is a sample label */
	[STK_FORMAT_PPROF] = { .name = "pprof", .suffixes = { ".pb.gz", ".pprof" }, .span_labels = true,
			       .write = stk_output_pprof },
	/* a self-contained interactive flame graph */
	[STK_FORMAT_SVG] = { .name = "svg", .suffixes = { ".svg" }, .write = stk_output_svg },
	/* the event log, written as events come (core/eventlog/) */
	[STK_FORMAT_PARQUET] = { .name = "parquet", .suffixes = { ".parquet" }, .source = STK_FROM_RECORDING },
	/* speedscope's JSON file format, a profile per thread */
	[STK_FORMAT_SPEEDSCOPE] = { .name = "speedscope", .suffixes = { ".speedscope.json" },
				    .source = STK_FROM_TIMELINE, .write = stk_output_speedscope },
	/* the Chrome Trace Event Format (Perfetto, chrome://tracing) */
	[STK_FORMAT_TRACE] = { .name = "trace", .suffixes = { ".trace.json" }, .source = STK_FROM_TIMELINE,
			       .write = stk_output_trace },
};

_Static_assert(sizeof(table) / sizeof(table[0]) == STK_FORMAT_COUNT, "a format without its row");
_Static_assert(STK_FORMAT_COUNT <= 8 * sizeof(stk_format_set), "a format beyond stk_format_set's bits");

const struct stk_format_desc *stk_format_desc(enum stk_format format)
{
	return (unsigned)format < STK_FORMAT_COUNT ? &table[format] : NULL;
}

int stk_format_from_name(const char *name, enum stk_format *format)
{
	for (int f = 0; name && f < STK_FORMAT_COUNT; f++) {
		if (strcmp(name, table[f].name) == 0) {
			*format = (enum stk_format)f;
			return 0;
		}
	}
	return -1;
}

int stk_format_from_path(const char *path, enum stk_format *format)
{
	size_t len = path ? strlen(path) : 0;

	for (int f = 0; f < STK_FORMAT_COUNT; f++) {
		for (const char *const *suffix = table[f].suffixes; *suffix; suffix++) {
			size_t n = strlen(*suffix);

			/* "x.svg" yes, ".svg" alone is a hidden file without extension */
			if (len > n && path[len - n - 1] != '/' && strcasecmp(path + len - n, *suffix) == 0) {
				*format = (enum stk_format)f;
				return 0;
			}
		}
	}
	return -1;
}

const char *stk_format_name(enum stk_format format)
{
	const struct stk_format_desc *d = stk_format_desc(format);

	return d ? d->name : "unknown";
}

bool stk_format_needs_events(enum stk_format format)
{
	const struct stk_format_desc *d = stk_format_desc(format);

	return d && d->source != STK_FROM_TOTALS;
}

bool stk_format_shows_spans(enum stk_format format)
{
	const struct stk_format_desc *d = stk_format_desc(format);

	return d && (d->span_labels || d->source != STK_FROM_TOTALS);
}

stk_format_set stk_formats_from(enum stk_format_source source)
{
	stk_format_set set = 0;

	for (int f = 0; f < STK_FORMAT_COUNT; f++)
		if (table[f].source == source)
			set |= STK_FORMAT_BIT(f);
	return set;
}

stk_format_set stk_formats_offered(enum stk_format_offer offer)
{
	stk_format_set totals = stk_formats_from(STK_FROM_TOTALS), timelines = stk_formats_from(STK_FROM_TIMELINE);

	switch (offer) {
	case STK_OFFER_TOTALS: return totals;
	case STK_OFFER_RENDERED: return totals | timelines;
	case STK_OFFER_ALL: break;
	}
	return totals | timelines | stk_formats_from(STK_FROM_RECORDING);
}

bool stk_format_offered(enum stk_format format, enum stk_format_offer offer)
{
	return (unsigned)format < STK_FORMAT_COUNT && (stk_formats_offered(offer) & STK_FORMAT_BIT(format));
}

stk_format_set stk_formats_showing_spans(void)
{
	stk_format_set set = 0;

	for (int f = 0; f < STK_FORMAT_COUNT; f++)
		if (stk_format_shows_spans((enum stk_format)f))
			set |= STK_FORMAT_BIT(f);
	return set;
}

const char *stk_format_join(char *buf, size_t len, stk_format_set set, bool suffix, const char *sep,
			    const char *last)
{
	size_t at = 0, left = 0;

	for (int f = 0; f < STK_FORMAT_COUNT; f++)
		left += (set & STK_FORMAT_BIT(f)) != 0;
	if (len)
		buf[0] = '\0';
	for (int f = 0; f < STK_FORMAT_COUNT && at < len; f++) {
		if (!(set & STK_FORMAT_BIT(f)))
			continue;
		left--;
		int n = snprintf(buf + at, len - at, "%s%s", suffix ? table[f].suffixes[0] : table[f].name,
				 !left ? "" : left == 1 ? last : sep);
		at += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

int stk_output_write(FILE *out, const struct stk_report *report, const struct stk_output_opts *opts)
{
	const struct stk_format_desc *d = stk_format_desc(opts->format);

	if (!d || !d->write)
		return -1;
	return d->write(out, report, opts);
}

int stk_resolve_output_formats(const char *const *paths, enum stk_format *formats, size_t n,
			       bool format_given, enum stk_format format, char *msg, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		enum stk_format by_name;

		formats[i] = format;
		if (stk_format_from_path(paths[i], &by_name) == 0) {
			/* a file named x.parquet never holds folded text: the two must agree */
			if (format_given && by_name != format) {
				snprintf(msg, len, "-o %s: its extension says %s, -f/--format says %s; drop one",
					 paths[i], stk_format_name(by_name), stk_format_name(format));
				return -1;
			}
			formats[i] = by_name;
		} else if (!format_given) {
			snprintf(msg, len, "-o %s: cannot tell the format from the extension; add --format",
				 paths[i]);
			return -1;
		}
	}
	return 0;
}
