#include "core/base/install.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Calls fn(link_path) for every link name; stops at the first non-zero. */
typedef int (*link_visitor)(const char *link_path, void *ctx);

static int for_each_link(const char *dir, const struct stk_applet *table, size_t n,
			 link_visitor fn, void *ctx)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		for (int bare = 0; bare < 2; bare++) {
			if (bare && !table[i].bare_link)
				continue;
			snprintf(path, sizeof(path), "%s/%s%s", dir, bare ? "" : "stk-", table[i].name);
			int ret = fn(path, ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct install_ctx {
	const char *self_path;
	struct stat self;
	bool symbolic;
	FILE *out;
	char *err;
	size_t errlen;
};

static int check_replaceable(const char *link_path, void *arg)
{
	struct install_ctx *c = arg;
	struct stat st;

	if (lstat(link_path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(c->err, c->errlen, "%s: %s", link_path, strerror(errno));
		return -1;
	}
	/* A symlink or hard link that already leads to this stk is ours to replace. */
	if (stat(link_path, &st) == 0 && st.st_dev == c->self.st_dev && st.st_ino == c->self.st_ino)
		return 0;
	snprintf(c->err, c->errlen, "%s exists and is not a link to stk; not overwriting it", link_path);
	return -1;
}

static int create_link(const char *link_path, void *arg)
{
	struct install_ctx *c = arg;
	struct stat st;

	if (lstat(link_path, &st) == 0) {
		/* Same inode as stk itself (hard link into place already): keep it. */
		if (!S_ISLNK(st.st_mode) && st.st_ino == c->self.st_ino && st.st_dev == c->self.st_dev &&
		    !c->symbolic)
			goto done;
		if (unlink(link_path)) {
			snprintf(c->err, c->errlen, "removing old %s: %s", link_path, strerror(errno));
			return -1;
		}
	}
	if ((c->symbolic ? symlink(c->self_path, link_path) : link(c->self_path, link_path))) {
		snprintf(c->err, c->errlen, "creating %s: %s%s", link_path, strerror(errno),
			 errno == EXDEV ? " (use -s for symbolic links across file systems)" : "");
		return -1;
	}
done:
	fprintf(c->out, "%s -> %s\n", link_path, c->self_path);
	return 0;
}

int stk_install_links(const char *self_path, const char *dir, bool symbolic,
		      const struct stk_applet *table, size_t n, FILE *out, char *err, size_t errlen)
{
	struct install_ctx c = { .self_path = self_path, .symbolic = symbolic, .out = out,
				 .err = err, .errlen = errlen };
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", dir);
		return -1;
	}
	if (stat(self_path, &c.self)) {
		snprintf(err, errlen, "cannot stat stk itself (%s): %s", self_path, strerror(errno));
		return -1;
	}
	if (for_each_link(dir, table, n, check_replaceable, &c))
		return -1;
	return for_each_link(dir, table, n, create_link, &c);
}
