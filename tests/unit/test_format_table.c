/* The table of output formats, walked: names, suffixes, sources, and the help and messages made from it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/options/stack_opts.h"

/* Every row is whole, its name and each suffix (any case) lead back to it, and no two rows share either. */
static void rows_map_back(struct test_ctx *t)
{
	for (int f = 0; f < STK_FORMAT_COUNT; f++) {
		const struct stk_format_desc *d = stk_format_desc((enum stk_format)f);
		enum stk_format got;

		CHECK(t, d != NULL);
		if (!d)
			continue;
		CHECK(t, d->name && d->name[0]);
		CHECK(t, stk_format_from_name(d->name, &got) == 0 && (int)got == f);
		CHECK_STR(t, stk_format_name((enum stk_format)f), d->name);
		CHECK(t, d->suffixes[0] != NULL);
		/* the recording is written by core/eventlog/, every other format by its writer */
		CHECK(t, (d->write == NULL) == (d->source == STK_FROM_RECORDING));
		for (const char *const *s = d->suffixes; *s; s++) {
			char path[64], upper[64];

			CHECK(t, (*s)[0] == '.' && strlen(*s) > 1);
			snprintf(path, sizeof(path), "dir/run%s", *s);
			for (size_t i = 0; i <= strlen(path); i++)
				upper[i] = (char)toupper((unsigned char)path[i]);
			got = STK_FORMAT_COUNT;
			CHECK(t, stk_format_from_path(path, &got) == 0 && (int)got == f);
			if ((int)got != f)
				printf("  %s is taken as %s, not %s\n", path, stk_format_name(got), d->name);
			CHECK(t, stk_format_from_path(upper, &got) == 0 && (int)got == f);
			snprintf(path, sizeof(path), "dir/%s", *s);
			CHECK(t, stk_format_from_path(path, &got) == -1); /* a hidden file, no extension */
		}
	}
	CHECK(t, stk_format_desc(STK_FORMAT_COUNT) == NULL);
	CHECK_STR(t, stk_format_name(STK_FORMAT_COUNT), "unknown");
}

/* Which formats need the recording, which show spans, and what each kind of applet offers. */
static void sources_and_offers(struct test_ctx *t)
{
	stk_format_set all = 0, events = 0;

	for (int f = 0; f < STK_FORMAT_COUNT; f++) {
		all |= STK_FORMAT_BIT(f);
		if (stk_format_needs_events((enum stk_format)f))
			events |= STK_FORMAT_BIT(f);
	}
	CHECK(t, events == (STK_FORMAT_BIT(STK_FORMAT_PARQUET) | STK_FORMAT_BIT(STK_FORMAT_SPEEDSCOPE) |
			    STK_FORMAT_BIT(STK_FORMAT_TRACE)));
	CHECK(t, stk_formats_showing_spans() == (events | STK_FORMAT_BIT(STK_FORMAT_PPROF)));
	CHECK(t, stk_formats_offered(STK_OFFER_ALL) == all);
	CHECK(t, stk_formats_offered(STK_OFFER_TOTALS) == (all & ~events));
	CHECK(t, stk_formats_offered(STK_OFFER_RENDERED) == (all & ~STK_FORMAT_BIT(STK_FORMAT_PARQUET)));
	CHECK(t, stk_formats_from(STK_FROM_RECORDING) == STK_FORMAT_BIT(STK_FORMAT_PARQUET));
	CHECK(t, stk_format_offered(STK_FORMAT_TRACE, STK_OFFER_RENDERED));
	CHECK(t, !stk_format_offered(STK_FORMAT_PARQUET, STK_OFFER_RENDERED));
	CHECK(t, !stk_format_offered(STK_FORMAT_COUNT, STK_OFFER_ALL));
}

static void join_lists(struct test_ctx *t)
{
	char buf[256];

	CHECK_STR(t, stk_format_join(buf, sizeof(buf), stk_formats_offered(STK_OFFER_ALL), false, ", ", " or "),
		  "text, folded, pmp, pprof, svg, parquet, speedscope or trace");
	CHECK_STR(t, stk_format_join(buf, sizeof(buf), stk_formats_offered(STK_OFFER_TOTALS), true, " ", " "),
		  ".txt .folded .pmp .pb.gz .svg");
	CHECK_STR(t, stk_format_join(buf, sizeof(buf), STK_FORMAT_BIT(STK_FORMAT_SVG), false, ", ", " or "), "svg");
	CHECK_STR(t, stk_format_join(buf, sizeof(buf), 0, false, ", ", " or "), "");
	/* cut short, still a string */
	CHECK_STR(t, stk_format_join(buf, 8, stk_formats_offered(STK_OFFER_ALL), false, ", ", " or "), "text, f");
}

static char *help_of(enum stk_format_offer offer, enum stk_format deflt)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	stk_output_help(f, offer, deflt);
	fclose(f);
	return buf;
}

/* Whether word is in text between non-word characters. */
static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if ((p == text || strchr(" (,", p[-1])) && strchr(" ),;\n", p[n]))
			return 1;
	return 0;
}

/* The help lines list every offered format, by name and first suffix, and nothing else. */
static void help_lists_the_table(struct test_ctx *t)
{
	static const enum stk_format_offer offers[] = { STK_OFFER_ALL, STK_OFFER_TOTALS, STK_OFFER_RENDERED };

	for (size_t i = 0; i < sizeof(offers) / sizeof(offers[0]); i++) {
		char *help = help_of(offers[i], STK_FORMAT_TEXT);
		stk_format_set set = stk_formats_offered(offers[i]);

		CHECK(t, help != NULL);
		if (!help)
			continue;
		for (int f = 0; f < STK_FORMAT_COUNT; f++) {
			const struct stk_format_desc *d = stk_format_desc((enum stk_format)f);
			int offered = (set & STK_FORMAT_BIT(f)) != 0;

			CHECK(t, has_word(help, d->name) == offered);
			CHECK(t, has_word(help, d->suffixes[0]) == offered);
		}
		free(help);
	}
}

/* The lines as the applets' help has always read (cmd/ prints them; the packaging test compares the man page). */
static void help_reads_as_before(struct test_ctx *t)
{
	char *all = help_of(STK_OFFER_ALL, STK_FORMAT_TEXT), *pmp = help_of(STK_OFFER_TOTALS, STK_FORMAT_PMP);
	char *report = help_of(STK_OFFER_RENDERED, STK_FORMAT_TEXT);

	CHECK_STR(t, all ? all : "",
		  "  -o, --output FILE           write there; format from --format or the extension (.txt .folded\n"
		  "                              .pmp .pb.gz .svg .parquet .speedscope.json .trace.json); repeatable\n"
		  "      --format FMT            text, folded, pmp, pprof, svg, parquet, speedscope or trace\n");
	CHECK_STR(t, pmp ? pmp : "",
		  "  -o, --output FILE           write there; format from --format or the extension\n"
		  "                              (.txt .folded .pmp .pb.gz .svg); may be repeated\n"
		  "      --format FMT            pmp (default), text, folded, pprof or svg\n");
	CHECK_STR(t, report ? report : "",
		  "  -o, --output FILE           write there; format from --format or the extension (.txt .folded\n"
		  "                              .pmp .pb.gz .svg .speedscope.json .trace.json); repeatable\n"
		  "      --format FMT            text, folded, pmp, pprof, svg, speedscope or trace\n");
	free(all);
	free(pmp);
	free(report);
}

/* The messages that name formats. */
static void messages_name_the_table(struct test_ctx *t)
{
	struct stk_stack_opts o;
	char msg[256] = "", prog[] = "stk", *argv[] = { prog, NULL };

	stk_stack_opts_init(&o, 't', 127);
	o.argc = 1;
	o.argv = argv;
	CHECK(t, stk_stack_opt(&o, STK_OPT_FORMAT, "png", msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "--format png: expected text, folded, pmp, pprof, svg, parquet, speedscope or trace");
	CHECK(t, stk_stack_opt(&o, STK_OPT_SPAN, "c:malloc", msg, sizeof(msg)) == 1);
	CHECK(t, stk_stack_opt(&o, 'o', "run.svg", msg, sizeof(msg)) == 1);
	CHECK(t, stk_stack_opts_finish(&o, 1, msg, sizeof(msg)) == -1);
	CHECK_STR(t, msg, "--span labels events: add an output that shows them (-o FILE.parquet, .pb.gz, "
		  ".speedscope.json or .trace.json)");
	CHECK(t, stk_stack_opt(&o, 'o', "run.PPROF", msg, sizeof(msg)) == 1);
	CHECK(t, stk_stack_opts_finish(&o, 1, msg, sizeof(msg)) == 0);
	CHECK(t, o.output_formats[0] == STK_FORMAT_SVG && o.output_formats[1] == STK_FORMAT_PPROF);
	stk_stack_opts_free(&o);
}

const struct test_case format_table_tests[] = {
	{ "format_rows_map_back", rows_map_back },
	{ "format_sources_and_offers", sources_and_offers },
	{ "format_join_lists", join_lists },
	{ "format_help_lists_the_table", help_lists_the_table },
	{ "format_help_reads_as_before", help_reads_as_before },
	{ "format_messages_name_the_table", messages_name_the_table },
	{ NULL, NULL },
};
