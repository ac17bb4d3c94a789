#include "core/base/options.h"

#include <getopt.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/base/pidns.h"

int stk_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*value = v;
	return 0;
}

int stk_parse_id_list(const char *text, uint32_t **ids, size_t *n)
{
	size_t cap = 1, count = 0;
	const char *p = text;

	for (const char *c = text; *c; c++)
		cap += *c == ',';
	uint32_t *out = calloc(cap, sizeof(*out));
	if (!out)
		return -1;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (errno || v == 0 || v > 0x7fffffffUL || (*end && *end != ','))
			goto bad;
		out[count++] = (uint32_t)v;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			goto bad;
	}
	if (!count)
		goto bad;
	*ids = out;
	*n = count;
	return 0;
bad:
	free(out);
	return -1;
}

/* A positive number and its unit's multiplier from units (names, multipliers; the first name empty: no unit). */
static int number_with_unit(const char *text, const char *const *names, const double *mult, size_t n, double max,
			    double *out)
{
	char *end;
	double v;

	if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || !(v > 0))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(end, names[i]) == 0) {
			*out = v * mult[i];
			return *out <= max ? 0 : -1;
		}
	return -1;
}

int stk_parse_seconds(const char *text, long *ms)
{
	static const char *const names[] = { "" };
	static const double mult[] = { 1000.0 };
	double v;

	if (number_with_unit(text, names, mult, 1, 1e10, &v))
		return -1;
	*ms = (long)llround(v);
	return *ms > 0 ? 0 : -1;
}

int stk_parse_duration(const char *text, int64_t *ns)
{
	static const char *const names[] = { "", "ns", "us", "ms", "s", "m", "min", "h", "d" };
	static const double mult[] = { 1e9, 1, 1e3, 1e6, 1e9, 60e9, 60e9, 3600e9, 86400e9 };
	double v;

	if (number_with_unit(text, names, mult, sizeof(mult) / sizeof(mult[0]), 1e18, &v))
		return -1;
	*ns = (int64_t)llround(v);
	return *ns > 0 ? 0 : -1;
}

int stk_parse_size(const char *text, uint64_t *bytes)
{
	static const char *const names[] = { "", "b", "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "t", "tb",
					     "tib" };
	static const double mult[] = { 1, 1, 0x1p10, 0x1p10, 0x1p10, 0x1p20, 0x1p20, 0x1p20, 0x1p30, 0x1p30, 0x1p30,
				       0x1p40, 0x1p40, 0x1p40 };
	double v;

	if (number_with_unit(text, names, mult, sizeof(mult) / sizeof(mult[0]), 0x1p62, &v))
		return -1;
	*bytes = (uint64_t)llround(v);
	return *bytes > 0 ? 0 : -1;
}

int stk_check_pid_exists(uint32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	return access(path, F_OK) == 0 ? 0 : -1;
}

int stk_check_tid_exists(uint32_t tid)
{
	/* /proc/TID resolves for any thread id, though readdir lists only tgids. */
	return stk_check_pid_exists(tid);
}

int stk_check_targets(const uint32_t *pids, size_t n_pids, const char *pid_opt, const uint32_t *tids,
		      size_t n_tids, const char *tid_opt, char *msg, size_t len)
{
	/* In a child PID namespace our ids would silently match nothing. */
	if ((n_pids || n_tids) && !stk_pidns_is_host()) {
		snprintf(msg, len, "%s/%s need host PIDs, but stk runs in a child PID namespace; "
			 "run it in the host's PID namespace", pid_opt, tid_opt);
		return -1;
	}
	for (size_t i = 0; i < n_pids; i++) {
		if (stk_check_pid_exists(pids[i])) {
			snprintf(msg, len, "%s %u: no such process", pid_opt, pids[i]);
			return -1;
		}
	}
	for (size_t i = 0; i < n_tids; i++) {
		if (stk_check_tid_exists(tids[i])) {
			snprintf(msg, len, "%s %u: no such thread", tid_opt, tids[i]);
			return -1;
		}
	}
	return 0;
}

int stk_check_cgroup_dir(const char *dir, char *msg, size_t len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/tasks", dir);
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(msg, len, "not a cgroup directory (no cgroup.threads or tasks)");
	return -1;
}

const char *stk_getopt_problem(int c, const char *applet, char **argv, char *msg, size_t len)
{
	if (c == ':')
		snprintf(msg, len, "option %s needs an argument", argv[optind - 1]);
	else
		snprintf(msg, len, "unknown option '%s' (see 'stk %s --help')", argv[optind - 1], applet);
	return msg;
}

int stk_each_item(const char *list, int (*fn)(void *ctx, const char *item, size_t n), void *ctx)
{
	const char *p = list;
	int ret;

	do {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if ((ret = fn(ctx, p, n)))
			return ret;
		p = end ? end + 1 : NULL;
	} while (p);
	return 0;
}

/* An item of -e's list, with what stk_each_kind passes on. */
struct kind_list {
	const char *spec;
	int (*fn)(void *ctx, const char *item, size_t n, char *msg, size_t len);
	void *ctx;
	char *msg;
	size_t len;
};

static int kind_item(void *ctx, const char *item, size_t n)
{
	struct kind_list *l = ctx;

	if (n == 0) {
		snprintf(l->msg, l->len, "-e %s: an empty kind (expected KIND[:N][,KIND[:N]...])", l->spec);
		return -1;
	}
	return l->fn(l->ctx, item, n, l->msg, l->len);
}

int stk_each_kind(const char *spec, int (*fn)(void *ctx, const char *item, size_t n, char *msg, size_t len), void *ctx,
		  char *msg, size_t len)
{
	struct kind_list l = { spec, fn, ctx, msg, len };

	return stk_each_item(spec, kind_item, &l);
}

int stk_kind_item(const char *item, size_t n, size_t *name_len, bool *has_n, uint64_t max, uint64_t *v)
{
	const char *colon = memchr(item, ':', n);
	char num[32];
	size_t m;

	*name_len = colon ? (size_t)(colon - item) : n;
	*has_n = colon != NULL;
	if (!colon)
		return 0;
	m = n - *name_len - 1;
	snprintf(num, sizeof(num), "%.*s", (int)(m < sizeof(num) ? m : sizeof(num) - 1), colon + 1);
	return m >= sizeof(num) || stk_parse_u64(num, 1, max, v) ? -1 : 0;
}
