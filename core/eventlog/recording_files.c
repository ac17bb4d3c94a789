/*
 * A recording's files: arguments expanded, the first event found by the
 * series' names, a window's files opened (recording_files.h).
 */
#include "core/eventlog/recording_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/series_names.h"

/* Paths a recording's arguments expand to at most: a series left running holds many, a window opens few. */
#define MAX_PATHS (1u << 20)
/* Partitions a directory may hold (stk record --layout hive: DIR/host=H/date=D/): entered at most this deep. */
#define PARTITION_DEPTH 2

void stk_recording_init(struct stk_recording *r, const char *applet)
{
	memset(r, 0, sizeof(*r));
	r->applet = applet;
}

int stk_recording_add_arg(struct stk_recording *r, const char *arg)
{
	if (r->n_args == STK_RECORDING_MAX_ARGS)
		return -1;
	r->args[r->n_args++] = arg;
	return 0;
}

/* path added to r's files (copied). 0, or -1 after the error. */
static int add_path(struct stk_recording *r, const char *path)
{
	if (r->n == MAX_PATHS) {
		stk_error(r->applet, "%s: more than %u files in one recording", path, MAX_PATHS);
		return -1;
	}
	if (stk_grow((void **)&r->paths, &r->cap, r->n + 1, sizeof(*r->paths)) || !(r->paths[r->n] = strdup(path))) {
		stk_error(r->applet, "out of memory");
		return -1;
	}
	r->n++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

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
static int add_dir_files(struct stk_recording *r, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len;
	char path[PATH_MAX];
	int ret = 0;

	if (!d) {
		stk_error(r->applet, "%s: %s", dir, strerror(errno));
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
static int add_dir(struct stk_recording *r, const char *dir)
{
	size_t first = r->n;
	int ret = add_dir_files(r, dir, 0);

	if (ret == 0 && r->n == first) {
		stk_error(r->applet, "%s: no *.parquet in this directory (nor in host=*/date=*/ below it)", dir);
		return -1;
	}
	qsort(r->paths + first, r->n - first, sizeof(*r->paths), cmp_names);
	return ret;
}

/* A glob's files (quoted, so the shell left it): at least one. */
static int add_glob(struct stk_recording *r, const char *pattern)
{
	glob_t g;
	int ret = 0;

	if (glob(pattern, 0, NULL, &g) != 0) {
		stk_error(r->applet, "%s: no file matches", pattern);
		return -1;
	}
	for (size_t i = 0; ret == 0 && i < g.gl_pathc; i++)
		ret = add_path(r, g.gl_pathv[i]);
	globfree(&g);
	return ret;
}

int stk_recording_expand(struct stk_recording *r)
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
static int open_file(const char *applet, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		stk_error(applet, "%s: %s", path, strerror(errno));
	return fd;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The first event of the file at path into *event, its capture's start into
 * *start, each when earlier. 0, or -1 after the error.
 */
static int earliest(const char *applet, const char *path, int64_t *event, int64_t *start)
{
	char err[512];
	int fd = open_file(applet, path);
	struct stk_ev_file *f = fd >= 0 ? stk_ev_open(fd, err, sizeof(err)) : NULL;

	if (!f) {
		if (fd >= 0) {
			stk_error(applet, "%s: %s", path, err);
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

int stk_recording_first_named(const struct stk_recording *r, int64_t *first)
{
	struct named *order = malloc((r->n ? r->n : 1) * sizeof(*order));
	int64_t end, event = INT64_MAX, start = INT64_MAX;
	int ret = 1;

	if (!order) {
		stk_error(r->applet, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->n && ret == 1; i++) {
		order[i].at = i;
		if (!stk_ev_series_name_range(base_name(r->paths[i]), &order[i].first, &end))
			ret = 0;
	}
	if (ret == 1) {
		qsort(order, r->n, sizeof(*order), by_first);
		/* no file named from later than the earliest event so far holds an earlier one */
		for (size_t i = 0; i < r->n && order[i].first <= event && ret == 1; i++)
			if (earliest(r->applet, r->paths[order[i].at], &event, &start))
				ret = -1;
		/* as for any recording: its first event, or its start when it has none */
		*first = event != INT64_MAX ? event : start;
	}
	free(order);
	return ret;
}

int stk_recording_first(const struct stk_recording *r, int64_t *first)
{
	int64_t event = INT64_MAX, start = INT64_MAX;
	int named = stk_recording_first_named(r, first);

	if (named)
		return named < 0 ? -1 : 0;
	/* one footer at a time: no bound on the files, as the merged footer would say it */
	for (size_t i = 0; i < r->n; i++)
		if (earliest(r->applet, r->paths[i], &event, &start))
			return -1;
	*first = event != INT64_MAX ? event : start;
	return 0;
}

bool stk_recording_end_named(const struct stk_recording *r, int64_t *end)
{
	int64_t first, last = INT64_MIN, e;

	for (size_t i = 0; i < r->n; i++) {
		if (!stk_ev_series_name_range(base_name(r->paths[i]), &first, &e))
			return false;
		if (e > last)
			last = e;
	}
	if (r->n)
		*end = last;
	return r->n > 0;
}

/* Whether r's file i is one of the window's: it may reach [from, to), or it is the last and none before did. */
static bool in_window(const struct stk_recording *r, size_t i, int64_t from, int64_t to, size_t kept)
{
	return stk_ev_series_reaches(base_name(r->paths[i]), from, to) || (!kept && i + 1 == r->n);
}

int stk_recording_window_open(const struct stk_recording *r, int64_t from, int64_t to,
			      struct stk_recording_window *w)
{
	size_t n = 0, first = 0;

	*w = (struct stk_recording_window){ .applet = r->applet };
	for (size_t i = 0; i < r->n; i++)
		if (in_window(r, i, from, to, n) && !n++)
			first = i; /* the message names the window's first file */
	if (n > STK_RECORDING_MAX_FILES) {
		stk_error(r->applet, "%s and the others: %zu files in one recording, at most %d (with a series', "
			  "--from/--to opens only those it needs)", r->paths[first], n, STK_RECORDING_MAX_FILES);
		return -1;
	}
	if (!(w->paths = malloc((n ? n : 1) * sizeof(*w->paths))) || !(w->fds = malloc((n ? n : 1) * sizeof(*w->fds)))) {
		stk_error(r->applet, "out of memory");
		stk_recording_window_close(w);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		if (in_window(r, i, from, to, w->n))
			w->paths[w->n++] = r->paths[i];
	for (size_t i = 0; i < w->n; i++)
		w->fds[i] = -1;
	for (size_t i = 0; i < w->n; i++)
		if ((w->fds[i] = open_file(w->applet, w->paths[i])) < 0) {
			stk_recording_window_close(w);
			return -1;
		}
	return 0;
}

struct stk_ev_file *stk_recording_window_reader(const struct stk_recording_window *w)
{
	char err[512];
	size_t bad = 0;
	struct stk_ev_file *f = stk_ev_open_many(w->fds, w->n, &bad, err, sizeof(err));

	if (!f)
		stk_error(w->applet, "%s: %s", bad < w->n ? w->paths[bad] : "?", err);
	return f;
}

void stk_recording_window_close(struct stk_recording_window *w)
{
	for (size_t i = 0; w->fds && i < w->n; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	free(w->fds);
	free(w->paths);
	*w = (struct stk_recording_window){ .applet = w->applet };
}

void stk_recording_free(struct stk_recording *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->paths[i]);
	free(r->paths);
	r->paths = NULL;
	r->n = r->cap = 0;
}
