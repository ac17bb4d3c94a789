/*
 * stk report: a recording (an event log a capture wrote with -o
 * FILE.parquet) printed again in any format, over all of it or narrowed
 * by time, process, thread, span or event. Over the whole recording it
 * prints what the capture printed. Needs no privileges and no BPF: the
 * rendering is core/eventlog/event_render.c's. A file that is not a
 * recording stk wrote is one line on stderr and exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/safe_output.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_render.h"
#include "core/eventlog/time_arg.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"

#define APPLET "report"

static void print_help(void)
{
	printf("usage: stk report [options] FILE.parquet\n\n"
	       "Prints a recording (-o FILE.parquet of profile, offcputime or stackcount) in any format,\n"
	       "over all of it (what the capture printed) or narrowed.\n\n"
	       "      --from T                from T: seconds from the first event (2.5), HH:MM:SS on its day,\n"
	       "                              or YYYY-MM-DD HH:MM:SS[.frac][Z|+HH:MM]\n"
	       "      --to T                  until T (the same forms)\n"
	       "  -p, --pid PID[,PID...]      only these processes\n"
	       "  -t, --tid TID[,TID...]      only these threads\n"
	       "      --span LABEL            only events in spans labelled LABEL (FUNC: every FUNC=VALUE)\n"
	       "      --event NAME            only these events (cpu, offcpu, span, a probe) instead of the capture's\n"
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
};

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

struct report_config {
	const char *path;
	const char *from, *to, *span, *event;
	uint32_t *pids, *tids;
	size_t n_pids, n_tids;
	const char *outputs[STK_MAX_OUTPUTS];
	enum stk_format formats[STK_MAX_OUTPUTS];
	size_t n_outputs;
	enum stk_format format;
	bool format_given, verbose;
};

static int parse_ids(const char *arg, char opt, uint32_t **ids, size_t *n)
{
	free(*ids);
	*ids = NULL;
	if (stk_parse_id_list(arg, ids, n) == 0)
		return 0;
	return usage_error("-%c %s: expected a list of positive numbers", opt, arg);
}

static int parse_args(struct report_config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },     { "to", required_argument, NULL, OPT_TO },
		{ "pid", required_argument, NULL, 'p' },           { "tid", required_argument, NULL, 't' },
		{ "span", required_argument, NULL, OPT_SPAN },     { "event", required_argument, NULL, OPT_EVENT },
		{ "folded", no_argument, NULL, 'f' },              { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },                { 0 },
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
	if (optind + 1 < argc)
		return usage_error("unexpected argument '%s' (one recording per run)", argv[optind + 1]);
	cfg->path = argv[optind];
	if (stk_resolve_output_formats(cfg->outputs, cfg->formats, cfg->n_outputs, cfg->format_given, cfg->format, msg,
				       sizeof(msg)))
		return usage_error("%s", msg);
	for (size_t i = 0; i < cfg->n_outputs; i++)
		if (!stk_format_offered(cfg->formats[i], STK_OFFER_RENDERED))
			return usage_error("-o %s: a recording is Parquet already; choose another format", cfg->outputs[i]);
	return 0;
}

/* The recording, opened so that no FIFO or device can make it wait. -1 after the error. */
static int open_recording(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		stk_error(APPLET, "%s: %s", path, strerror(errno));
	return fd;
}

/* The filter the options describe, its times read against the recording's first event. 0, or -1 after the error. */
static int make_filter(const struct report_config *cfg, int fd, struct stk_ev_filter *flt)
{
	char err[512];
	struct stk_ev_file *f = stk_ev_open(fd, err, sizeof(err));
	int ret = 0;

	if (!f) {
		stk_error(APPLET, "%s: %s", cfg->path, err);
		return -1;
	}
	const struct stk_ev_meta *m = stk_ev_meta(f);
	int64_t first = m->events ? m->first : m->start;

	stk_ev_filter_all(flt);
	flt->pids = cfg->pids;
	flt->n_pids = cfg->n_pids;
	flt->tids = cfg->tids;
	flt->n_tids = cfg->n_tids;
	flt->span = cfg->span;
	flt->event = cfg->event;
	if ((cfg->from && stk_time_arg_parse(cfg->from, first, &flt->from, err, sizeof(err))) ||
	    (cfg->to && stk_time_arg_parse(cfg->to, first, &flt->to, err, sizeof(err)))) {
		stk_error(APPLET, "--%s %s", cfg->from && flt->from == INT64_MIN ? "from" : "to", err);
		ret = -1;
	} else if (flt->from >= flt->to) {
		stk_error(APPLET, "--from must come before --to");
		ret = -1;
	}
	if (ret == 0 && cfg->verbose)
		fprintf(stderr, "report: %s: %s by \"%s\", %llu events (%llu lost), first at %lld ns since the epoch\n",
			cfg->path, m->applet, m->command ? m->command : "?", (unsigned long long)m->events,
			(unsigned long long)m->lost, (long long)first);
	stk_ev_close(f);
	return ret;
}

/* One output. 0, 1 (writing failed) or 2 (the recording is bad), after printing why. */
static int render_one(const struct report_config *cfg, int fd, const struct stk_ev_filter *flt, enum stk_format format,
		      const char *path)
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
	rc = stk_ev_render(fd, flt, format, out, err, sizeof(err));
	if (rc == STK_EV_RENDER_BAD_INPUT)
		stk_error(APPLET, "%s: %s", cfg->path, err);
	else if (rc)
		stk_error(APPLET, "%s: %s", path ? path : "stdout", err);
	else if (o && stk_safe_output_commit(o, err, sizeof(err))) {
		stk_error(APPLET, "writing %s", err);
		rc = STK_EV_RENDER_WRITE_FAILED;
	}
	stk_safe_output_close(o);
	return rc == STK_EV_RENDER_BAD_INPUT ? STK_EXIT_USAGE : rc ? 1 : 0;
}

static int report_main(const struct stk_invocation *inv)
{
	struct report_config cfg = { .format = STK_FORMAT_TEXT };
	struct stk_ev_filter flt;
	int ret = parse_args(&cfg, inv->argc, inv->argv), fd = -1;

	if (ret) {
		ret = ret > 0 ? 0 : STK_EXIT_USAGE;
		goto out;
	}
	if ((fd = open_recording(cfg.path)) < 0 || make_filter(&cfg, fd, &flt)) {
		ret = STK_EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < (cfg.n_outputs ? cfg.n_outputs : 1) && ret != STK_EXIT_USAGE; i++) {
		int rc = render_one(&cfg, fd, &flt, cfg.n_outputs ? cfg.formats[i] : cfg.format,
				    cfg.n_outputs ? cfg.outputs[i] : NULL);

		if (rc > ret)
			ret = rc;
	}
out:
	if (fd >= 0)
		close(fd);
	free(cfg.pids);
	free(cfg.tids);
	return ret;
}

STK_APPLET(report, .name = "report", .summary = "what happened when? (a recording sliced by time, thread, span; any format)",
	   .main = report_main, .bare_link = false, .rank = 80);
