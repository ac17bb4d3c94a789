/* The names of a series' files: see series_names.h. */
#include "core/eventlog/series_names.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define DONE_PREFIX "stk-"
#define DONE_SUFFIX ".parquet"

void stk_ev_series_stamp(int64_t ns, char *buf)
{
	time_t sec = (time_t)(ns / 1000000000);
	int ms = (int)(ns % 1000000000 / 1000000);
	struct tm tm;

	if (ns < 0 || !gmtime_r(&sec, &tm)) {
		sec = 0;
		ms = 0;
		gmtime_r(&sec, &tm);
	}
	snprintf(buf, STK_EV_STAMP_LEN + 1, "%04u%02u%02uT%02u%02u%02u.%03uZ", (unsigned)(tm.tm_year + 1900) % 10000,
		 (unsigned)(tm.tm_mon + 1) % 100, (unsigned)tm.tm_mday % 100, (unsigned)tm.tm_hour % 100,
		 (unsigned)tm.tm_min % 100, (unsigned)tm.tm_sec % 100, (unsigned)ms % 1000);
}

/* A stamp at p (STK_EV_STAMP_LEN characters) back to ns. false when p is not one. */
static bool parse_stamp(const char *p, int64_t *ns)
{
	struct tm tm = { 0 };
	int ms, used = 0;

	for (int i = 0; i < STK_EV_STAMP_LEN; i++) {
		bool digit = p[i] >= '0' && p[i] <= '9';

		if (digit != !(i == 8 || i == 15 || i == 19))
			return false;
	}
	if (p[8] != 'T' || p[15] != '.' || p[19] != 'Z' ||
	    sscanf(p, "%4d%2d%2dT%2d%2d%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &ms, &used) != 7 || used != STK_EV_STAMP_LEN)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t sec = timegm(&tm);
	if (sec == (time_t)-1 || sec < 0)
		return false;
	*ns = (int64_t)sec * 1000000000 + (int64_t)ms * 1000000;
	return true;
}

bool stk_ev_series_name_range(const char *name, int64_t *first, int64_t *end)
{
	size_t len = strlen(name), pre = strlen(DONE_PREFIX), suf = strlen(DONE_SUFFIX);
	const char *p = name + pre, *tail = name + pre + 2 * STK_EV_STAMP_LEN + 1;

	if (len < pre + 2 * STK_EV_STAMP_LEN + 1 + suf || strncmp(name, DONE_PREFIX, pre) != 0 ||
	    p[STK_EV_STAMP_LEN] != '-' || !parse_stamp(p, first) || !parse_stamp(p + STK_EV_STAMP_LEN + 1, end))
		return false;
	/* then ".parquet", or "-N.parquet" */
	if (*tail == '-') {
		tail++;
		if (*tail < '1' || *tail > '9')
			return false;
		while (*tail >= '0' && *tail <= '9')
			tail++;
	}
	return strcmp(tail, DONE_SUFFIX) == 0 && *first <= *end;
}

void stk_ev_series_base_name(int64_t first, int64_t end, char *buf, size_t len)
{
	char a[STK_EV_STAMP_LEN + 1], b[STK_EV_STAMP_LEN + 1];

	if (end < first)
		end = first;
	stk_ev_series_stamp(first, a);
	/* the end to the next millisecond up: events of its last millisecond stay inside */
	stk_ev_series_stamp(end + 999999, b);
	snprintf(buf, len, "%s%s-%s", DONE_PREFIX, a, b);
}

bool stk_ev_series_reaches(const char *name, int64_t from, int64_t to)
{
	int64_t first, end;

	/* [first, end] holds every instant its events cover; a name that says nothing may hold anything */
	return !stk_ev_series_name_range(name, &first, &end) || (end >= from && first < to);
}
