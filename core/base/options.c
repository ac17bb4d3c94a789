#include "core/base/options.h"

#include <getopt.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

int stk_parse_seconds(const char *text, long *ms)
{
	char *end;
	double s;

	if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
		return -1;
	errno = 0;
	s = strtod(text, &end);
	if (errno || *end || !(s > 0) || s > 1e7)
		return -1;
	*ms = (long)llround(s * 1000.0);
	return *ms > 0 ? 0 : -1;
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

const char *stk_getopt_problem(int c, const char *applet, char **argv, char *msg, size_t len)
{
	if (c == ':')
		snprintf(msg, len, "option %s needs an argument", argv[optind - 1]);
	else
		snprintf(msg, len, "unknown option '%s' (see 'stk %s --help')", argv[optind - 1], applet);
	return msg;
}
