/*
 * A debuginfod client (libcurl): debug files by build ID from the servers
 * in DEBUGINFOD_URLS, cached where elfutils caches them
 * (DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client), so stk, gdb and perf share one cache.
 * As root (euid 0) that cache is used only when it is root's: reached from
 * "/" through no symbolic link, each directory root's and writable by no one
 * else (or sticky); else (a user's HOME kept by su or sudo -E) stk's own
 * STK_DEBUGINFOD_ROOT_CACHE under the same rule, else none (fetched into
 * memory). Root trusts only cached files owned by root.
 * Every fetch is bounded: a per-request timeout (no progress for that
 * long), a total budget for all fetches of one capture, a size cap. What
 * arrives must be an ELF file with the asked-for build ID, else it is
 * refused; it enters the cache by temp file + rename, never through a
 * symlink. Not thread-safe: one client per symbolizer.
 */
#ifndef STK_DEBUGINFOD_H
#define STK_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Root's cache when the usual one is not root's. */
#define STK_DEBUGINFOD_ROOT_CACHE "/var/cache/stk/debuginfod"

struct stk_debuginfod_opts {
	const char *urls;        /* space-separated server URLs; NULL: $DEBUGINFOD_URLS */
	const char *cache_dir;   /* NULL: $DEBUGINFOD_CACHE_PATH or elfutils' default */
	const char *root_cache;  /* NULL: STK_DEBUGINFOD_ROOT_CACHE (tests name another) */
	double request_timeout;  /* seconds without progress (connect included); 0: $DEBUGINFOD_TIMEOUT or 10 */
	double total_timeout;    /* seconds for all fetches together; 0: $DEBUGINFOD_MAXTIME or 30 */
	uint64_t max_size;       /* bytes per file; 0: $DEBUGINFOD_MAXSIZE or 1 GiB */
	FILE *progress;          /* where the progress line goes (stderr), or NULL */
	bool verbose;            /* say why each fetch failed */
};

struct stk_debuginfod_stats {
	unsigned cache_hits, fetched, failed, refused; /* refused: not ELF or build ID mismatch */
	uint64_t bytes;
	double seconds;          /* spent fetching */
	char last_failure[256];
};

struct stk_debuginfod;

/* NULL when no server is configured (or out of memory): then there is nothing to ask. */
struct stk_debuginfod *stk_debuginfod_new(const struct stk_debuginfod_opts *o);
void stk_debuginfod_free(struct stk_debuginfod *d);

/*
 * An fd (read-only, owned by the caller) of the debug file for build_id
 * (lowercase hex), from the cache or the servers; what = a name for the
 * progress line. -1 when no server has it or the budget is spent.
 */
int stk_debuginfod_debuginfo(struct stk_debuginfod *d, const char *build_id, const char *what);
void stk_debuginfod_get_stats(const struct stk_debuginfod *d, struct stk_debuginfod_stats *st);
/* The cache in use ("" when none: fetched files are not kept); chosen (and made) on first need. */
const char *stk_debuginfod_cache(struct stk_debuginfod *d);

/* "libcurl/7.88.1 BearSSL": what the client is built on (stk --version). */
const char *stk_debuginfod_library_version(void);

/* elfutils' default cache directory from these variables (NULL when unset); for tests. */
int stk_debuginfod_default_cache(const char *cache_path, const char *xdg_cache_home, const char *home,
				 char *out, size_t len);

#endif
