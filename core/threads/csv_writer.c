#include "core/threads/csv_writer.h"

#include "core/base/safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROW_MAX 65536

struct stk_csv_writer {
	char dir[PATH_MAX / 2], prefix[64];
	char *header;
	char path[PATH_MAX];
	int64_t hour; /* hours since the epoch of the open file, -1 none */
	int fd;
	char row[ROW_MAX];
};

struct stk_csv_writer *stk_csv_writer_new(const char *dir, const char *prefix, const char *header, char *err,
					  size_t errlen)
{
	struct stat st;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return NULL;
	}
	if (access(dir, W_OK)) {
		snprintf(err, errlen, "%s: not writable: %s", dir, strerror(errno));
		return NULL;
	}
	struct stk_csv_writer *w = calloc(1, sizeof(*w));
	if (!w || !(w->header = strdup(header))) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(w->prefix, sizeof(w->prefix), "%s", prefix);
	w->hour = -1;
	w->fd = -1;
	return w;
}

int stk_csv_append_field(char *buf, size_t len, size_t *used, const char *field)
{
	size_t u = *used;
	bool quote = strpbrk(field, ",\"\r\n") != NULL;

	if (quote) {
		if (u + 1 >= len)
			return -1;
		buf[u++] = '"';
	}
	for (const char *p = field; *p; p++) {
		if (u + 2 >= len)
			return -1;
		if (*p == '"' && quote)
			buf[u++] = '"';
		buf[u++] = *p;
	}
	if (quote) {
		if (u + 1 >= len)
			return -1;
		buf[u++] = '"';
	}
	buf[u] = '\0';
	*used = u;
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int open_hour(struct stk_csv_writer *w, int64_t hour, char *err, size_t errlen)
{
	time_t secs = (time_t)(hour * 3600);
	struct tm tm;
	char stamp[32];
	struct stat st;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d-%H", &tm);
	snprintf(w->path, sizeof(w->path), "%s/%s-%s.csv", w->dir, w->prefix, stamp);
	/* DIR may be shared (/tmp): no symlink followed, no file of another user appended to. */
	w->fd = stk_open_append_own(w->path, 0640, err, errlen);
	if (w->fd < 0)
		return -1;
	if (fstat(w->fd, &st)) {
		snprintf(err, errlen, "%s: %s", w->path, strerror(errno));
		return -1;
	}
	w->hour = hour;
	if (st.st_size == 0) {
		size_t n = strlen(w->header);
		char line[4096];
		snprintf(line, sizeof(line), "%s\n", w->header);
		if (write_all(w->fd, line, n + 1)) {
			snprintf(err, errlen, "%s: %s", w->path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int stk_csv_write_row(struct stk_csv_writer *w, int64_t wall_ns, const char *const *fields, size_t n, char *err,
		      size_t errlen)
{
	int64_t hour = wall_ns / 1000000000 / 3600;
	int opened = 0;
	size_t used = 0;

	if (hour != w->hour) {
		if (open_hour(w, hour, err, errlen))
			return -1;
		opened = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if ((i && (used + 1 >= sizeof(w->row) || !(w->row[used++] = ','))) ||
		    stk_csv_append_field(w->row, sizeof(w->row) - 1, &used, fields[i])) {
			snprintf(err, errlen, "a row is longer than %d bytes", ROW_MAX);
			return -1;
		}
	}
	w->row[used++] = '\n';
	if (write_all(w->fd, w->row, used)) {
		snprintf(err, errlen, "%s: %s", w->path, strerror(errno));
		return -1;
	}
	return opened;
}

const char *stk_csv_current_path(const struct stk_csv_writer *w)
{
	return w->path;
}

void stk_csv_writer_free(struct stk_csv_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w->header);
	free(w);
}
