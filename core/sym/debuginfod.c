/* The debuginfod client: see debuginfod.h. */
#include "core/sym/debuginfod.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/safe_dir.h"
#include "core/sym/elf_symbols.h"

#define DEFAULT_REQUEST_TIMEOUT 10.0
#define DEFAULT_TOTAL_TIMEOUT 30.0
#define DEFAULT_MAX_SIZE (1ULL << 30)

/* Where distributions keep their CA bundle (Debian/Ubuntu/Alpine, Fedora/RHEL, SUSE, older RHEL). */
static const char *const ca_bundles[] = {
	"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem", NULL,
};

struct stk_debuginfod {
	char **urls;
	size_t n_urls, cap_urls;
	char cache[4096]; /* "": none */
	bool as_root;     /* the cache is cache_fd (-1: none), and its files must be root's */
	bool root_chosen; /* cache_fd is set */
	int cache_fd;
	char root_cache[4096];
	double request_timeout, total_timeout;
	uint64_t max_size;
	FILE *progress;
	bool verbose, progress_tty;
	unsigned tmp_counter;
	struct stk_debuginfod_stats stats;
	CURL *curl; /* one handle: connections to a server are reused */
};

/* One transfer's state for curl's callbacks. */
struct transfer {
	struct stk_debuginfod *d;
	int fd;
	uint64_t written;
	bool too_big, write_failed;
	const char *what;
	int64_t last_shown_ns, started_ns;
};

static void failure(struct stk_debuginfod *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->stats.last_failure, sizeof(d->stats.last_failure), fmt, ap);
	va_end(ap);
	if (d->progress)
		fprintf(d->progress, "stk: debuginfod: %s\n", d->stats.last_failure);
}

static double env_seconds(const char *name, double fallback)
{
	const char *v = getenv(name);
	char *end;
	double x;

	if (!v || !*v)
		return fallback;
	x = strtod(v, &end);
	return *end || x <= 0 ? fallback : x;
}

int stk_debuginfod_default_cache(const char *cache_path, const char *xdg_cache_home, const char *home,
				 char *out, size_t len)
{
	struct stat st;
	int n;

	if (cache_path && *cache_path)
		n = snprintf(out, len, "%s", cache_path);
	else {
		/* elfutils: an existing legacy ~/.debuginfod_client_cache wins, else the XDG place. */
		n = snprintf(out, len, "%s/.debuginfod_client_cache", home && *home ? home : "");
		if (n >= 0 && (size_t)n < len && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		if (xdg_cache_home && *xdg_cache_home)
			n = snprintf(out, len, "%s/debuginfod_client", xdg_cache_home);
		else
			n = snprintf(out, len, "%s/.cache/debuginfod_client", home && *home ? home : "");
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int add_url(struct stk_debuginfod *d, const char *url, size_t n)
{
	char *u;

	while (n && url[n - 1] == '/')
		n--;
	/* http and https only: a file:// or other scheme is not fetched by stk */
	if (!n || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
		return 0;
	if (stk_grow((void **)&d->urls, &d->cap_urls, d->n_urls + 1, sizeof(*d->urls)) || !(u = strndup(url, n)))
		return -1;
	d->urls[d->n_urls++] = u;
	return 0;
}

/*
 * Root's cache: the usual place when it is root's all the way from "/"
 * (created there as needed), else stk's own place under the same rule
 * (the usual one follows a HOME that su or sudo -E kept from a user),
 * else none.
 */
static void choose_root_cache(struct stk_debuginfod *d)
{
	static const struct stk_dir_rules rules = { .root_only = true, .create = true };
	const char *root_cache = d->root_cache;
	char why[4200], why_own[4200];

	if (d->root_chosen)
		return;
	d->root_chosen = true;
	if (d->cache[0] == '/' && (d->cache_fd = stk_dir_open(d->cache, &rules, why, sizeof(why))) >= 0)
		return;
	if (d->cache[0] != '/')
		snprintf(why, sizeof(why), "%s: not an absolute path", d->cache);
	d->cache_fd = stk_dir_open(root_cache, &rules, why_own, sizeof(why_own));
	if (d->verbose && d->progress)
		fprintf(d->progress, "stk: debuginfod: not using the cache %s as root (%s); %s%s%s\n", d->cache, why,
			d->cache_fd >= 0 ? "using " : "no cache either: ", d->cache_fd >= 0 ? root_cache : why_own,
			d->cache_fd >= 0 ? "" : " (debug files are fetched into memory)");
	snprintf(d->cache, sizeof(d->cache), "%s", d->cache_fd >= 0 ? root_cache : "");
}

struct stk_debuginfod *stk_debuginfod_new(const struct stk_debuginfod_opts *o)
{
	const char *urls = o && o->urls ? o->urls : getenv("DEBUGINFOD_URLS");
	struct stk_debuginfod *d;
	const char *p;

	if (!urls || !*urls || !(d = calloc(1, sizeof(*d))))
		return NULL;
	d->cache_fd = -1;
	for (p = urls; *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n && add_url(d, p, n))
			goto fail;
		p += n;
	}
	if (!d->n_urls)
		goto fail;
	if (o && o->cache_dir)
		snprintf(d->cache, sizeof(d->cache), "%s", o->cache_dir);
	else if (stk_debuginfod_default_cache(getenv("DEBUGINFOD_CACHE_PATH"), getenv("XDG_CACHE_HOME"),
					      getenv("HOME"), d->cache, sizeof(d->cache)))
		goto fail;
	d->request_timeout = o && o->request_timeout > 0 ? o->request_timeout
				: env_seconds("DEBUGINFOD_TIMEOUT", DEFAULT_REQUEST_TIMEOUT);
	d->total_timeout = o && o->total_timeout > 0 ? o->total_timeout
			      : env_seconds("DEBUGINFOD_MAXTIME", DEFAULT_TOTAL_TIMEOUT);
	d->max_size = o && o->max_size ? o->max_size
				       : (uint64_t)env_seconds("DEBUGINFOD_MAXSIZE", (double)DEFAULT_MAX_SIZE);
	d->progress = o ? o->progress : NULL;
	d->verbose = o && o->verbose;
	d->progress_tty = d->progress && isatty(fileno(d->progress));
	/* Chosen (and made) when first needed: a client that fetches nothing leaves nothing behind. */
	d->as_root = geteuid() == 0;
	snprintf(d->root_cache, sizeof(d->root_cache), "%s",
		 o && o->root_cache ? o->root_cache : STK_DEBUGINFOD_ROOT_CACHE);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		goto fail;
	if (!(d->curl = curl_easy_init())) {
		curl_global_cleanup();
		goto fail;
	}
	return d;
fail:
	if (d->cache_fd >= 0)
		close(d->cache_fd);
	for (size_t i = 0; i < d->n_urls; i++)
		free(d->urls[i]);
	free(d->urls);
	free(d);
	return NULL;
}

void stk_debuginfod_free(struct stk_debuginfod *d)
{
	if (!d)
		return;
	if (d->cache_fd >= 0)
		close(d->cache_fd);
	curl_easy_cleanup(d->curl);
	curl_global_cleanup();
	for (size_t i = 0; i < d->n_urls; i++)
		free(d->urls[i]);
	free(d->urls);
	free(d);
}

const char *stk_debuginfod_library_version(void)
{
	return curl_version();
}

const char *stk_debuginfod_cache(struct stk_debuginfod *d)
{
	if (d && d->as_root)
		choose_root_cache(d);
	return d ? d->cache : "";
}

void stk_debuginfod_get_stats(const struct stk_debuginfod *d, struct stk_debuginfod_stats *st)
{
	if (d)
		*st = d->stats;
	else
		memset(st, 0, sizeof(*st));
}

static bool valid_build_id(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return n >= 2 && n <= 128 && n % 2 == 0 && id[n] == '\0';
}

/* The file at fd is an ELF file with this build ID. */
static bool has_build_id(int fd, const char *build_id)
{
	char got[129];

	return stk_elf_build_id_fd(fd, got, sizeof(got)) == 0 && strcmp(got, build_id) == 0;
}

/* Root's cache directory for build_id, created as needed: a directory of root's only. -1 with why. */
static int open_root_build_id_dir(struct stk_debuginfod *d, const char *build_id)
{
	struct stat st;
	int sub;

	if (mkdirat(d->cache_fd, build_id, 0700) && errno != EEXIST) {
		failure(d, "cache %s/%s: %s", d->cache, build_id, strerror(errno));
		return -1;
	}
	sub = openat(d->cache_fd, build_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 || fstat(sub, &st) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		failure(d, "cache %s/%s: %s", d->cache, build_id, sub < 0 ? strerror(errno) : "not a directory of root's only");
		if (sub >= 0)
			close(sub);
		return -1;
	}
	return sub;
}

/* The cache's directory for build_id, created as needed; never through a symlink. -1 with why. */
static int open_build_id_dir(struct stk_debuginfod *d, const char *build_id)
{
	int dir, sub;

	if (d->as_root)
		return open_root_build_id_dir(d, build_id);
	if (mkdir(d->cache, 0700) && errno != EEXIST) {
		/* elfutils creates the XDG parent too (~/.cache) */
		char parent[4096], *slash;

		snprintf(parent, sizeof(parent), "%s", d->cache);
		if ((slash = strrchr(parent, '/')) && slash != parent) {
			*slash = '\0';
			mkdir(parent, 0700);
		}
		if (mkdir(d->cache, 0700) && errno != EEXIST) {
			failure(d, "cache %s: %s", d->cache, strerror(errno));
			return -1;
		}
	}
	dir = open(d->cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		failure(d, "cache %s: %s", d->cache, strerror(errno));
		return -1;
	}
	if (mkdirat(dir, build_id, 0700) && errno != EEXIST) {
		failure(d, "cache %s/%s: %s", d->cache, build_id, strerror(errno));
		close(dir);
		return -1;
	}
	sub = openat(dir, build_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		failure(d, "cache %s/%s: %s", d->cache, build_id, strerror(errno));
	close(dir);
	return sub;
}

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n, done = 0;

	if (t->written + len > t->d->max_size) {
		t->too_big = true;
		return 0; /* aborts the transfer */
	}
	while (done < len) {
		ssize_t w = write(t->fd, data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			t->write_failed = true;
			return 0;
		}
		done += (size_t)w;
	}
	t->written += len;
	return len;
}

static int on_progress(void *arg, curl_off_t total, curl_off_t now, curl_off_t ut, curl_off_t un)
{
	struct transfer *t = arg;
	int64_t at = stk_now_ns(CLOCK_MONOTONIC);

	(void)ut;
	(void)un;
	if (t->d->progress_tty && at - t->last_shown_ns >= 200000000) {
		t->last_shown_ns = at;
		if (total > 0)
			fprintf(t->d->progress, "\rstk: debuginfod: fetching debug info for %s: %lld of %lld KB ",
				t->what, (long long)now / 1024, (long long)total / 1024);
		else
			fprintf(t->d->progress, "\rstk: debuginfod: fetching debug info for %s: %lld KB ", t->what,
				(long long)now / 1024);
		fflush(t->d->progress);
	}
	return 0;
}

/* One server: the file is written to fd (a temp file in the cache). 0, or -1 with the failure noted. */
static int fetch_one(struct stk_debuginfod *d, const char *server, const char *build_id, int fd,
		     const char *what, double remaining)
{
	char url[4400], errbuf[CURL_ERROR_SIZE] = "";
	struct transfer t = { .d = d, .fd = fd, .what = what, .started_ns = stk_now_ns(CLOCK_MONOTONIC) };
	CURL *c = d->curl;
	long code = 0, low_speed = (long)(d->request_timeout + 0.999);
	CURLcode rc;

	snprintf(url, sizeof(url), "%s/buildid/%s/debuginfo", server, build_id);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "stk debuginfod client");
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)d->max_size);
	/* no progress for request_timeout: give up on this server; never past the total budget */
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(1000 * (d->request_timeout < remaining ? d->request_timeout : remaining)));
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, low_speed > 0 ? low_speed : 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(1000 * remaining) > 0 ? (long)(1000 * remaining) : 1L);
	/* SSL_CERT_FILE names another bundle, as OpenSSL and gnutls-based tools read it */
	if (getenv("SSL_CERT_FILE") && *getenv("SSL_CERT_FILE"))
		curl_easy_setopt(c, CURLOPT_CAINFO, getenv("SSL_CERT_FILE"));
	else
		for (size_t i = 0; ca_bundles[i]; i++)
			if (access(ca_bundles[i], R_OK) == 0) {
				curl_easy_setopt(c, CURLOPT_CAINFO, ca_bundles[i]);
				break;
			}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	d->stats.seconds += (double)(stk_now_ns(CLOCK_MONOTONIC) - t.started_ns) / 1e9;
	if (d->progress_tty)
		fprintf(d->progress, "\r\033[K");
	if (t.too_big) {
		failure(d, "%s: %s: larger than %llu bytes, refused", what, url, (unsigned long long)d->max_size);
		return -1;
	}
	if (rc == CURLE_FILESIZE_EXCEEDED) {
		failure(d, "%s: %s: announced more than %llu bytes, refused", what, url,
			(unsigned long long)d->max_size);
		return -1;
	}
	if (rc != CURLE_OK) {
		failure(d, "%s: %s: %s", what, url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		return -1;
	}
	if (code != 200 || !t.written) {
		failure(d, "%s: %s: HTTP %ld, %llu bytes", what, url, code, (unsigned long long)t.written);
		return -1;
	}
	d->stats.bytes += t.written;
	return 0;
}

int stk_debuginfod_debuginfo(struct stk_debuginfod *d, const char *build_id, const char *what)
{
	char tmp[64];
	int dir = -1, fd;
	struct stat st;
	bool keep;

	if (!d || !valid_build_id(build_id))
		return -1;
	if (d->as_root)
		choose_root_cache(d);
	/* Root without a cache of its own fetches into memory. */
	keep = !d->as_root || d->cache_fd >= 0;
	if (keep && (dir = open_build_id_dir(d, build_id)) < 0) {
		d->stats.failed++;
		return -1;
	}
	/* Cached (by stk, gdb or perf): still checked, a cache is only a hint; root's must be root's. */
	fd = keep ? openat(dir, "debuginfo", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (!d->as_root || st.st_uid == 0) &&
		    has_build_id(fd, build_id)) {
			d->stats.cache_hits++;
			if (d->verbose && d->progress)
				fprintf(d->progress, "stk: debuginfod: debug info for %s (%s) from the cache %s\n",
					what, build_id, d->cache);
			close(dir);
			return fd;
		}
		close(fd);
	}
	for (size_t i = 0; i < d->n_urls; i++) {
		double remaining = d->total_timeout - d->stats.seconds;

		if (remaining <= 0) {
			failure(d, "%s: the total time for fetches (%.0f s) is spent", what, d->total_timeout);
			break;
		}
		snprintf(tmp, sizeof(tmp), ".stk-%d-%u.tmp", (int)getpid(), d->tmp_counter++);
		fd = keep ? openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
			  : memfd_create("debuginfo", MFD_CLOEXEC);
		if (fd < 0) {
			failure(d, "cache %s/%s: %s", d->cache, build_id, strerror(errno));
			break;
		}
		if (d->progress)
			fprintf(d->progress, "stk: debuginfod: fetching debug info for %s (%s) from %s\n", what,
				build_id, d->urls[i]);
		if (fetch_one(d, d->urls[i], build_id, fd, what, remaining) == 0) {
			if (has_build_id(fd, build_id) && (!keep || renameat(dir, tmp, dir, "debuginfo") == 0)) {
				d->stats.fetched++;
				if (keep)
					close(dir);
				lseek(fd, 0, SEEK_SET);
				return fd;
			}
			d->stats.refused++;
			failure(d, "%s: %s: not an ELF file with build ID %s, refused", what, d->urls[i], build_id);
		}
		if (keep)
			unlinkat(dir, tmp, 0);
		close(fd);
	}
	d->stats.failed++;
	if (keep)
		close(dir);
	return -1;
}
