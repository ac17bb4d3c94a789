/* The table of output formats: names, file suffixes and writers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/output/output.h"
#include "core/output/output_formats.h"

static const struct {
	const char *name;
	enum stk_format format;
} format_names[] = {
	{ "text", STK_FORMAT_TEXT },   { "folded", STK_FORMAT_FOLDED }, { "pmp", STK_FORMAT_PMP },
	{ "pprof", STK_FORMAT_PPROF }, { "svg", STK_FORMAT_SVG },       { "parquet", STK_FORMAT_PARQUET },
	{ "speedscope", STK_FORMAT_SPEEDSCOPE }, { "trace", STK_FORMAT_TRACE },
};

static const struct {
	const char *suffix;
	enum stk_format format;
} format_suffixes[] = {
	{ ".txt", STK_FORMAT_TEXT },    { ".folded", STK_FORMAT_FOLDED }, { ".pmp", STK_FORMAT_PMP },
	{ ".pb.gz", STK_FORMAT_PPROF }, { ".pprof", STK_FORMAT_PPROF },   { ".svg", STK_FORMAT_SVG },
	{ ".parquet", STK_FORMAT_PARQUET }, { ".speedscope.json", STK_FORMAT_SPEEDSCOPE },
	{ ".trace.json", STK_FORMAT_TRACE },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

int stk_format_from_name(const char *name, enum stk_format *format)
{
	for (size_t i = 0; name && i < ARRAY_LEN(format_names); i++) {
		if (strcmp(name, format_names[i].name) == 0) {
			*format = format_names[i].format;
			return 0;
		}
	}
	return -1;
}

int stk_format_from_path(const char *path, enum stk_format *format)
{
	size_t len = path ? strlen(path) : 0;

	for (size_t i = 0; i < ARRAY_LEN(format_suffixes); i++) {
		size_t n = strlen(format_suffixes[i].suffix);

		/* "x.svg" yes, ".svg" alone is a hidden file without extension */
		if (len > n && path[len - n - 1] != '/' &&
		    strcasecmp(path + len - n, format_suffixes[i].suffix) == 0) {
			*format = format_suffixes[i].format;
			return 0;
		}
	}
	return -1;
}

const char *stk_format_name(enum stk_format format)
{
	for (size_t i = 0; i < ARRAY_LEN(format_names); i++)
		if (format_names[i].format == format)
			return format_names[i].name;
	return "unknown";
}

static int (*const writers[])(FILE *, const struct stk_report *, const struct stk_output_opts *) = {
	[STK_FORMAT_TEXT] = stk_output_text,   [STK_FORMAT_FOLDED] = stk_output_folded,
	[STK_FORMAT_PMP] = stk_output_pmp,     [STK_FORMAT_PPROF] = stk_output_pprof,
	[STK_FORMAT_SVG] = stk_output_svg,     [STK_FORMAT_SPEEDSCOPE] = stk_output_speedscope,
	[STK_FORMAT_TRACE] = stk_output_trace,
};

bool stk_format_needs_events(enum stk_format format)
{
	return format == STK_FORMAT_PARQUET || format == STK_FORMAT_SPEEDSCOPE || format == STK_FORMAT_TRACE;
}

int stk_output_write(FILE *out, const struct stk_report *report, const struct stk_output_opts *opts)
{
	if ((size_t)opts->format >= ARRAY_LEN(writers) || !writers[opts->format])
		return -1;
	return writers[opts->format](out, report, opts);
}

int stk_resolve_output_formats(const char *const *paths, enum stk_format *formats, size_t n,
			       bool format_given, enum stk_format format, char *msg, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		formats[i] = format;
		if (!format_given && stk_format_from_path(paths[i], &formats[i])) {
			snprintf(msg, len, "-o %s: cannot tell the format from the extension; add --format",
				 paths[i]);
			return -1;
		}
	}
	return 0;
}
