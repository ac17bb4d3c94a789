/*
 * stk report: a recording (an event log a capture wrote with -o
 * FILE.parquet; several files, a directory's, a glob's, read as one in
 * time order) printed again in any format, over all of it or narrowed by
 * time, process, thread, span or event (kind). Over the whole recording it
 * prints what the capture printed. With --base (another recording) or
 * --base-from/--base-to (another window of it) it draws a difference
 * instead. Needs no privileges and no BPF: the rendering is
 * core/eventlog/event_render.c's. A file that is not a recording stk wrote
 * is one line on stderr and exit 2.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/safe_output.h"
#include "core/eventlog/event_host.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_render.h"
#include "core/eventlog/recording_files.h"
#include "core/eventlog/time_arg.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"

#define APPLET "report"

static void print_help(void)
{
	printf("usage: stk report [options] FILE.parquet|DIR|GLOB...\n\n"
	       "Prints a recording (-o FILE.parquet of any stack applet, threadstate or record) in any format,\n"
	       "over all of it (what the capture printed) or narrowed. Several files, a directory's *.parquet\n"
	       "(its host=*/date=*/ partitions' too) or a glob are one recording, read in the time order of\n"
	       "their first events; of stk record's series (stk-FIRST-END.parquet) only the files --from/--to\n"
	       "can reach are opened.\n\n"
	       "      --from T                from T: seconds from the first event (2.5), HH:MM[:SS] on its day,\n"
	       "                              or YYYY-MM-DD HH:MM[:SS[.frac]][Z|+HH:MM]\n"
	       "      --to T                  until T (the same forms)\n"
	       "  -p, --pid PID[,PID...]      only these processes\n"
	       "  -t, --tid TID[,TID...]      only these threads\n"
	       "      --span LABEL            only events in spans labelled LABEL (FUNC: every FUNC=VALUE)\n"
	       "      --event NAME[,NAME...]  only these events (a kind: cpu, offcpu, rss, state, ...; span; a probe)\n"
	       "                              instead of every kind the capture recorded\n"
	       "      --host NAME[,NAME...]   only the events these hosts recorded (the host column: stk record --host)\n"
	       "      --base FILE|DIR|GLOB    a difference: this recording is the base (repeatable), the one\n"
	       "                              given is compared with it (folded, svg or pprof; folded by default)\n"
	       "      --base-from T           a difference of two windows: the base from T (of --base, or else\n"
	       "                              of the same recording), against --from/--to\n"
	       "      --base-to T             the base until T\n"
	       "  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n");
	stk_output_help(stdout, STK_OFFER_RENDERED, STK_FORMAT_TEXT);
	printf("  -v, --verbose               what the file says about the capture, on stderr\n"
	       "  -h, --help                  this help\n");
}

enum report_long_opt {
	OPT_FROM = STK_OPT_APPLET,
	OPT_TO,
	OPT_SPAN,
	OPT_EVENT,
	OPT_FORMAT,
	OPT_BASE,
	OPT_BASE_FROM,
	OPT_BASE_TO,
	OPT_HOST,
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* A recording as given, and its files the window opened (for a difference of two windows of one: all of them). */
struct input {
	struct stk_recording files;
	struct stk_recording_window win;
};

struct report_config {
	struct input now, base;
	const char *from, *to, *span, *event, *host, *base_from, *base_to;
	uint32_t *pids, *tids;
	size_t n_pids, n_tids;
	const char *outputs[STK_MAX_OUTPUTS];
	enum stk_format formats[STK_MAX_OUTPUTS];
	size_t n_outputs;
	enum stk_format format;
	bool format_given, verbose, diff;
};

static int parse_ids(const char *arg, char opt, uint32_t **ids, size_t *n)
{
	free(*ids);
	*ids = NULL;
	if (stk_parse_id_list(arg, ids, n) == 0)
		return 0;
	return usage_error("-%c %s: expected a list of positive numbers", opt, arg);
}

/* --host's names, each one a host's (core/eventlog/event_host.h). 0, or -1 after the usage error. */
static int check_hosts(const char *list)
{
	char name[STK_EV_HOST_MAX + 2];

	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");
		const char *why = len < sizeof(name) ? NULL : "longer than 253 bytes";

		if (!why) {
			memcpy(name, p, len);
			name[len] = '\0';
			why = stk_ev_host_invalid(name);
		}
		if (why)
			return usage_error("--host %s: %s", list, why);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int parse_args(struct report_config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },     { "to", required_argument, NULL, OPT_TO },
		{ "pid", required_argument, NULL, 'p' },           { "tid", required_argument, NULL, 't' },
		{ "span", required_argument, NULL, OPT_SPAN },     { "event", required_argument, NULL, OPT_EVENT },
		{ "folded", no_argument, NULL, 'f' },              { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },                { "base", required_argument, NULL, OPT_BASE },
		{ "base-from", required_argument, NULL, OPT_BASE_FROM },
		{ "base-to", required_argument, NULL, OPT_BASE_TO }, { "host", required_argument, NULL, OPT_HOST },
		{ 0 },
	};
	char msg[512];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:t:fo:vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FROM: cfg->from = optarg; break;
		case OPT_TO: cfg->to = optarg; break;
		case OPT_SPAN: cfg->span = optarg; break;
		case OPT_EVENT: cfg->event = optarg; break;
		case OPT_HOST:
			if (check_hosts(optarg))
				return -1;
			cfg->host = optarg;
			break;
		case OPT_BASE_FROM: cfg->base_from = optarg; break;
		case OPT_BASE_TO: cfg->base_to = optarg; break;
		case OPT_BASE:
			if (stk_recording_add_arg(&cfg->base.files, optarg))
				return usage_error("--base %s: too many (at most %d; a directory or a glob takes many)", optarg,
						   STK_RECORDING_MAX_ARGS);
			break;
		case 'p':
			if (parse_ids(optarg, 'p', &cfg->pids, &cfg->n_pids))
				return -1;
			break;
		case 't':
			if (parse_ids(optarg, 't', &cfg->tids, &cfg->n_tids))
				return -1;
			break;
		case 'f':
			cfg->format = STK_FORMAT_FOLDED;
			cfg->format_given = true;
			break;
		case OPT_FORMAT:
			if (stk_format_from_name(optarg, &cfg->format) ||
			    !stk_format_offered(cfg->format, STK_OFFER_RENDERED))
				return usage_error("--format %s: expected %s", optarg,
						   stk_format_join(msg, sizeof(msg), stk_formats_offered(STK_OFFER_RENDERED),
								   false, ", ", " or "));
			cfg->format_given = true;
			break;
		case 'o':
			if (cfg->n_outputs == STK_MAX_OUTPUTS)
				return usage_error("-o %s: at most %d output files", optarg, STK_MAX_OUTPUTS);
			cfg->outputs[cfg->n_outputs++] = optarg;
			break;
		case 'v': cfg->verbose = true; break;
		case 'h': print_help(); return 1;
		default: return usage_error("%s", stk_getopt_problem(c, "report", argv, msg, sizeof(msg)));
		}
	}
	if (optind >= argc)
		return usage_error("missing FILE.parquet (see 'stk report --help')%s", "");
	for (; optind < argc; optind++)
		if (stk_recording_add_arg(&cfg->now.files, argv[optind]))
			return usage_error("%s: too many recordings (at most %d arguments; a directory or a glob takes many)",
					   argv[optind], STK_RECORDING_MAX_ARGS);
	cfg->diff = cfg->base.files.n_args || cfg->base_from || cfg->base_to;
	if (cfg->diff && !cfg->format_given)
		cfg->format = STK_FORMAT_FOLDED;
	if (stk_resolve_output_formats(cfg->outputs, cfg->formats, cfg->n_outputs, cfg->format_given, cfg->format, msg,
				       sizeof(msg)))
		return usage_error("%s", msg);
	for (size_t i = 0; i < cfg->n_outputs; i++)
		if (!stk_format_offered(cfg->formats[i], STK_OFFER_RENDERED))
			return usage_error("-o %s: a recording is Parquet already; choose another format", cfg->outputs[i]);
	for (size_t i = 0; cfg->diff && i < (cfg->n_outputs ? cfg->n_outputs : 1); i++) {
		enum stk_format f = cfg->n_outputs ? cfg->formats[i] : cfg->format;

		if (!stk_ev_diff_format(f))
			return usage_error("%s: a difference is drawn as folded, svg or pprof, not %s",
					   cfg->n_outputs ? cfg->outputs[i] : "--format", stk_format_name(f));
	}
	return 0;
}

/*
 * The filter the options describe for r, its times (from, to: the options
 * that say them) read against the recording's first event. 0, or -1 after
 * the error.
 */
static int make_filter(const struct report_config *cfg, struct input *in, const char *from_opt, const char *from,
		       const char *to_opt, const char *to, bool prune, struct stk_ev_filter *flt)
{
	char err[512];
	int64_t first = 0;
	/* a series' files named by their times: only those the window needs are opened */
	int named = prune && (from || to) ? stk_recording_first_named(&in->files, &first) : 0;
	int ret = 0;

	if (named < 0)
		return -1;
	stk_ev_filter_all(flt);
	if (named && ((from && stk_time_arg_parse(from, first, &flt->from, err, sizeof(err))) ||
		      (to && stk_time_arg_parse(to, first, &flt->to, err, sizeof(err))))) {
		stk_error(APPLET, "--%s %s", from && flt->from == INT64_MIN ? from_opt : to_opt, err);
		return -1;
	}
	if (!in->win.n && stk_recording_window_open(&in->files, named && from ? flt->from : INT64_MIN,
						    named && to ? flt->to : INT64_MAX, &in->win))
		return -1;
	struct stk_ev_file *f = stk_recording_window_reader(&in->win);
	if (!f)
		return -1;
	const struct stk_ev_meta *m = stk_ev_meta(f);

	if (!named)
		first = m->events ? m->first : m->start;
	stk_ev_filter_all(flt);
	flt->pids = cfg->pids;
	flt->n_pids = cfg->n_pids;
	flt->tids = cfg->tids;
	flt->n_tids = cfg->n_tids;
	flt->span = cfg->span;
	flt->event = cfg->event;
	flt->host = cfg->host;
	if ((from && stk_time_arg_parse(from, first, &flt->from, err, sizeof(err))) ||
	    (to && stk_time_arg_parse(to, first, &flt->to, err, sizeof(err)))) {
		stk_error(APPLET, "--%s %s", from && flt->from == INT64_MIN ? from_opt : to_opt, err);
		ret = -1;
	} else if (flt->from >= flt->to) {
		stk_error(APPLET, "--%s must come before --%s", from_opt, to_opt);
		ret = -1;
	}
	if (ret == 0 && cfg->verbose)
		fprintf(stderr, "report: %s%s: %s by \"%s\", %llu events (%llu lost), first at %lld ns since the epoch\n",
			in->win.paths[0], in->win.n > 1 ? " and the others" : "", m->applet, m->command ? m->command : "?",
			(unsigned long long)m->events, (unsigned long long)m->lost, (long long)first);
	stk_ev_close(f);
	return ret;
}

/* What one output is made of: the recording and its filter, and for a difference the base's. */
struct rendering {
	struct stk_ev_source now, base;
	const struct stk_recording_window *now_files, *base_files;
	bool diff;
};

/* One output. 0, 1 (writing failed) or 2 (the recording is bad), after printing why. */
static int render_one(struct rendering *rd, enum stk_format format, const char *path)
{
	char err[PATH_MAX + 256];
	struct stk_output_file *o = NULL;
	FILE *out = stdout;
	int rc;

	if (path && !(o = stk_safe_output_open(path, err, sizeof(err)))) {
		stk_error(APPLET, "-o %s", err);
		return 1;
	}
	if (o)
		out = stk_safe_output_stream(o);
	rd->now.bad = rd->base.bad = SIZE_MAX;
	rc = rd->diff ? stk_ev_render_diff(&rd->base, &rd->now, format, out, err, sizeof(err))
		      : stk_ev_render_many(&rd->now, format, out, err, sizeof(err));
	if (rc == STK_EV_RENDER_BAD_INPUT)
		stk_error(APPLET, "%s: %s", rd->base.bad != SIZE_MAX ? rd->base_files->paths[rd->base.bad]
					    : rd->now_files->paths[rd->now.bad != SIZE_MAX ? rd->now.bad : 0], err);
	else if (rc)
		stk_error(APPLET, "%s: %s", path ? path : "stdout", err);
	else if (o && stk_safe_output_commit(o, err, sizeof(err))) {
		stk_error(APPLET, "writing %s", err);
		rc = STK_EV_RENDER_WRITE_FAILED;
	}
	stk_safe_output_close(o);
	return rc == STK_EV_RENDER_BAD_INPUT ? STK_EXIT_USAGE : rc ? 1 : 0;
}

/* An empty result says why on stderr: no event passed the filters given, or the recording holds none. */
static void say_if_empty(const struct report_config *cfg, const struct rendering *rd)
{
	bool filtered = cfg->from || cfg->to || cfg->span || cfg->event || cfg->host || cfg->n_pids || cfg->n_tids;

	if (rd->now.shown || (rd->diff && rd->base.shown))
		return;
	if (filtered)
		fprintf(stderr, "%s: no event of the recording passed the filters given (--from/--to, -p, -t, "
			"--event, --host, --span)\n", APPLET);
	else
		fprintf(stderr, "%s: the recording holds no events\n", APPLET);
}

static int report_main(const struct stk_invocation *inv)
{
	struct report_config cfg = { .format = STK_FORMAT_TEXT };
	struct stk_ev_filter flt, base_flt;
	int ret;

	stk_recording_init(&cfg.now.files, APPLET);
	stk_recording_init(&cfg.base.files, APPLET);
	ret = parse_args(&cfg, inv->argc, inv->argv);
	struct input *base = cfg.base.files.n_args ? &cfg.base : &cfg.now;
	if (ret) {
		ret = ret > 0 ? 0 : STK_EXIT_USAGE;
		goto out;
	}
	/* a difference of two windows of one recording reads it twice: no file left out for the first */
	if (stk_recording_expand(&cfg.now.files) || stk_recording_expand(&cfg.base.files) ||
	    make_filter(&cfg, &cfg.now, "from", cfg.from, "to", cfg.to, !(cfg.diff && base == &cfg.now), &flt) ||
	    (cfg.diff && make_filter(&cfg, base, "base-from", cfg.base_from, "base-to", cfg.base_to, base != &cfg.now,
				     &base_flt))) {
		ret = STK_EXIT_USAGE;
		goto out;
	}
	struct rendering rd = {
		.now = { .fds = cfg.now.win.fds, .n = cfg.now.win.n, .flt = &flt },
		.base = { .fds = base->win.fds, .n = base->win.n, .flt = &base_flt },
		.now_files = &cfg.now.win, .base_files = &base->win, .diff = cfg.diff,
	};
	for (size_t i = 0; i < (cfg.n_outputs ? cfg.n_outputs : 1) && ret != STK_EXIT_USAGE; i++) {
		int rc = render_one(&rd, cfg.n_outputs ? cfg.formats[i] : cfg.format, cfg.n_outputs ? cfg.outputs[i] : NULL);

		if (rc > ret)
			ret = rc;
	}
	if (!ret)
		say_if_empty(&cfg, &rd);
out:
	stk_recording_window_close(&cfg.now.win);
	stk_recording_window_close(&cfg.base.win);
	stk_recording_free(&cfg.now.files);
	stk_recording_free(&cfg.base.files);
	free(cfg.pids);
	free(cfg.tids);
	return ret;
}

STK_APPLET(report, .name = "report", .summary = "what happened when? (recordings sliced by time, thread, span, kind; any format; differences)",
	   .main = report_main, .bare_link = false, .rank = 80);
