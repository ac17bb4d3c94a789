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
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/dispatch.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/safe_output.h"
#include "core/eventlog/event_host.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_render.h"
#include "core/eventlog/series_names.h"
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

/* Files one recording opens at most (after directories and globs are expanded, and a window chose). */
#define MAX_FILES 4096
/* Paths a recording's arguments expand to at most: a series left running holds many, a window opens few. */
#define MAX_PATHS (1u << 20)

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

/* A recording's files as given, then as read: paths (owned) and their descriptors. */
struct recording {
	const char *args[64]; /* as given: files, directories, globs */
	size_t n_args;
	char **paths;
	int *fds;
	size_t n, cap;
};

struct report_config {
	struct recording now, base;
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
			if (cfg->base.n_args == sizeof(cfg->base.args) / sizeof(cfg->base.args[0]))
				return usage_error("--base %s: too many (at most 64; a directory or a glob takes many)", optarg);
			cfg->base.args[cfg->base.n_args++] = optarg;
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
	for (; optind < argc; optind++) {
		if (cfg->now.n_args == sizeof(cfg->now.args) / sizeof(cfg->now.args[0]))
			return usage_error("%s: too many recordings (at most 64 arguments; a directory or a glob takes many)",
					   argv[optind]);
		cfg->now.args[cfg->now.n_args++] = argv[optind];
	}
	cfg->diff = cfg->base.n_args || cfg->base_from || cfg->base_to;
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

/* path added to r's files (copied). 0, or -1 after the error. */
static int add_path(struct recording *r, const char *path)
{
	if (r->n == MAX_PATHS) {
		stk_error(APPLET, "%s: more than %u files in one recording", path, MAX_PATHS);
		return -1;
	}
	if (stk_grow((void **)&r->paths, &r->cap, r->n + 1, sizeof(*r->paths)) || !(r->paths[r->n] = strdup(path))) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	r->n++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Partitions a directory may hold (stk record --layout hive: DIR/host=H/date=D/): entered at most this deep. */
#define PARTITION_DEPTH 2

/* Whether name is a hive partition's directory (host=..., date=...), by its name and its type (never a link). */
static bool partition_dir(const char *dir, const struct dirent *e)
{
	char path[PATH_MAX];
	struct stat st;

	if (strncmp(e->d_name, "host=", 5) != 0 && strncmp(e->d_name, "date=", 5) != 0)
		return false;
	return (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path) &&
	       lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir's *.parquet (a file still being written has another name), and those of its partitions below. */
static int add_dir_files(struct recording *r, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len;
	char path[PATH_MAX];
	int ret = 0;

	if (!d) {
		stk_error(APPLET, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while (ret == 0 && (e = readdir(d))) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (len >= 9 && strcmp(e->d_name + len - 8, ".parquet") == 0)
			ret = add_path(r, path);
		else if (depth < PARTITION_DEPTH && partition_dir(dir, e))
			ret = add_dir_files(r, path, depth + 1);
	}
	closedir(d);
	return ret;
}

/* A directory's complete recordings, its partitions' too, by name. */
static int add_dir(struct recording *r, const char *dir)
{
	size_t first = r->n;
	int ret = add_dir_files(r, dir, 0);

	if (ret == 0 && r->n == first) {
		stk_error(APPLET, "%s: no *.parquet in this directory (nor in host=*/date=*/ below it)", dir);
		return -1;
	}
	qsort(r->paths + first, r->n - first, sizeof(*r->paths), cmp_names);
	return ret;
}

/* A glob's files (quoted, so the shell left it): at least one. */
static int add_glob(struct recording *r, const char *pattern)
{
	glob_t g;
	int ret = 0;

	if (glob(pattern, 0, NULL, &g) != 0) {
		stk_error(APPLET, "%s: no file matches", pattern);
		return -1;
	}
	for (size_t i = 0; ret == 0 && i < g.gl_pathc; i++)
		ret = add_path(r, g.gl_pathv[i]);
	globfree(&g);
	return ret;
}

/* Each of r's arguments into its files. -1 after the error. */
static int expand_recording(struct recording *r)
{
	struct stat st;

	for (size_t i = 0; i < r->n_args; i++) {
		const char *a = r->args[i];
		int ret = stat(a, &st) == 0 && S_ISDIR(st.st_mode) ? add_dir(r, a)
			  : stat(a, &st) != 0 && strpbrk(a, "*?[") ? add_glob(r, a) : add_path(r, a);

		if (ret)
			return -1;
	}
	return 0;
}

/* A file opened so that no FIFO or device can make it wait: its fd, or -1 after the error. */
static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		stk_error(APPLET, "%s: %s", path, strerror(errno));
	return fd;
}

/* Each of r's files opened (MAX_FILES at most). -1 after the error. */
static int open_recording(struct recording *r)
{
	if (r->n > MAX_FILES) {
		stk_error(APPLET, "%s and the others: %zu files in one recording, at most %d (with a series', "
			  "--from/--to opens only those it needs)", r->paths[0], r->n, MAX_FILES);
		return -1;
	}
	if (!(r->fds = malloc(r->n * sizeof(*r->fds)))) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		r->fds[i] = -1;
	for (size_t i = 0; i < r->n; i++)
		if ((r->fds[i] = open_file(r->paths[i])) < 0)
			return -1;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The time range a file of stk record's series names (series_names.h), from its path. */
static bool named_range(const char *path, int64_t *first, int64_t *end)
{
	return stk_ev_series_name_range(base_name(path), first, end);
}

/* A file's named first time and its index, to visit the files by it. */
struct named {
	int64_t first;
	size_t at;
};

static int by_first(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/*
 * The first event of the file at path into *event, its capture's start into
 * *start, each when earlier. 0, or -1 after the error.
 */
static int earliest(const char *path, int64_t *event, int64_t *start)
{
	char err[512];
	int fd = open_file(path);
	struct stk_ev_file *f = fd >= 0 ? stk_ev_open(fd, err, sizeof(err)) : NULL;

	if (!f) {
		if (fd >= 0) {
			stk_error(APPLET, "%s: %s", path, err);
			close(fd);
		}
		return -1;
	}
	const struct stk_ev_meta *m = stk_ev_meta(f);
	if (m->events && m->first < *event)
		*event = m->first;
	if (m->start < *start)
		*start = m->start;
	stk_ev_close(f);
	close(fd);
	return 0;
}

/*
 * A recording whose every file is named by its time range (stk record -o
 * DIR/): its first event found opening as few footers as the names allow
 * (in order of the names' first times, until no file left can start
 * earlier). 1 with *first; 0 when some file is not so named; -1 after the
 * error.
 */
static int first_by_names(const struct recording *r, int64_t *first)
{
	struct named *order = malloc((r->n ? r->n : 1) * sizeof(*order));
	int64_t hi, event = INT64_MAX, start = INT64_MAX;
	int ret = 1;

	if (!order) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->n && ret == 1; i++) {
		order[i].at = i;
		if (!named_range(r->paths[i], &order[i].first, &hi))
			ret = 0;
	}
	if (ret == 1) {
		qsort(order, r->n, sizeof(*order), by_first);
		/* no file named from later than the earliest event so far holds an earlier one */
		for (size_t i = 0; i < r->n && order[i].first <= event && ret == 1; i++)
			if (earliest(r->paths[order[i].at], &event, &start))
				ret = -1;
		/* as for any recording: its first event, or its start when it has none */
		*first = event != INT64_MAX ? event : start;
	}
	free(order);
	return ret;
}

/* Only the files whose named range reaches into [flt->from, flt->to) (at least one stays). */
static void keep_window(struct recording *r, const struct stk_ev_filter *flt)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (!stk_ev_series_reaches(base_name(r->paths[i]), flt->from, flt->to) && (kept || i + 1 < r->n)) {
			free(r->paths[i]);
			continue;
		}
		r->paths[kept++] = r->paths[i];
	}
	r->n = kept;
}

static void close_recording(struct recording *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->fds && r->fds[i] >= 0)
			close(r->fds[i]);
		free(r->paths[i]);
	}
	free(r->paths);
	free(r->fds);
}

/*
 * The filter the options describe for r, its times (from, to: the options
 * that say them) read against the recording's first event. 0, or -1 after
 * the error.
 */
static int make_filter(const struct report_config *cfg, struct recording *r, const char *from_opt,
		       const char *from, const char *to_opt, const char *to, bool prune, struct stk_ev_filter *flt)
{
	char err[512];
	size_t bad;
	int64_t first = 0;
	/* a series' files named by their times: only those the window needs are opened */
	int named = prune && (from || to) ? first_by_names(r, &first) : 0;
	int ret = 0;

	if (named < 0)
		return -1;
	stk_ev_filter_all(flt);
	if (named && ((from && stk_time_arg_parse(from, first, &flt->from, err, sizeof(err))) ||
		      (to && stk_time_arg_parse(to, first, &flt->to, err, sizeof(err))))) {
		stk_error(APPLET, "--%s %s", from && flt->from == INT64_MIN ? from_opt : to_opt, err);
		return -1;
	}
	if (named)
		keep_window(r, &(struct stk_ev_filter){ .from = from ? flt->from : INT64_MIN,
							.to = to ? flt->to : INT64_MAX });
	if (!r->fds && open_recording(r))
		return -1;
	struct stk_ev_file *f = stk_ev_open_many(r->fds, r->n, &bad, err, sizeof(err));
	if (!f) {
		stk_error(APPLET, "%s: %s", r->paths[bad], err);
		return -1;
	}
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
			r->paths[0], r->n > 1 ? " and the others" : "", m->applet, m->command ? m->command : "?",
			(unsigned long long)m->events, (unsigned long long)m->lost, (long long)first);
	stk_ev_close(f);
	return ret;
}

/* What one output is made of: the recording and its filter, and for a difference the base's. */
struct rendering {
	struct stk_ev_source now, base;
	const struct recording *now_files, *base_files;
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

static int report_main(const struct stk_invocation *inv)
{
	struct report_config cfg = { .format = STK_FORMAT_TEXT };
	struct stk_ev_filter flt, base_flt;
	int ret = parse_args(&cfg, inv->argc, inv->argv);
	struct recording *base = cfg.base.n_args ? &cfg.base : &cfg.now;

	if (ret) {
		ret = ret > 0 ? 0 : STK_EXIT_USAGE;
		goto out;
	}
	/* a difference of two windows of one recording reads it twice: no file left out for the first */
	if (expand_recording(&cfg.now) || (cfg.base.n_args && expand_recording(&cfg.base)) ||
	    make_filter(&cfg, &cfg.now, "from", cfg.from, "to", cfg.to, !(cfg.diff && !cfg.base.n_args), &flt) ||
	    (cfg.diff && make_filter(&cfg, base, "base-from", cfg.base_from, "base-to", cfg.base_to, base != &cfg.now,
				     &base_flt))) {
		ret = STK_EXIT_USAGE;
		goto out;
	}
	struct rendering rd = {
		.now = { .fds = cfg.now.fds, .n = cfg.now.n, .flt = &flt },
		.base = { .fds = base->fds, .n = base->n, .flt = &base_flt },
		.now_files = &cfg.now, .base_files = base, .diff = cfg.diff,
	};
	for (size_t i = 0; i < (cfg.n_outputs ? cfg.n_outputs : 1) && ret != STK_EXIT_USAGE; i++) {
		int rc = render_one(&rd, cfg.n_outputs ? cfg.formats[i] : cfg.format, cfg.n_outputs ? cfg.outputs[i] : NULL);

		if (rc > ret)
			ret = rc;
	}
out:
	close_recording(&cfg.now);
	close_recording(&cfg.base);
	free(cfg.pids);
	free(cfg.tids);
	return ret;
}

STK_APPLET(report, .name = "report", .summary = "what happened when? (recordings sliced by time, thread, span, kind; any format; differences)",
	   .main = report_main, .bare_link = false, .rank = 80);
