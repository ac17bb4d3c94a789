/* Times in a recording: see time_arg.h. */
#include "core/eventlog/time_arg.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS 1000000000LL
/* Seconds and dates further out than this are typos (about 300 years). */
#define MAX_SECONDS 10000000000LL

/* Digits at *p as a number of exactly n digits (n 0: one or more, up to 11). */
static bool digits(const char **p, int n, long long *v)
{
	int got = 0;

	*v = 0;
	while (isdigit((unsigned char)**p) && (n ? got < n : got < 11)) {
		*v = *v * 10 + (**p - '0');
		(*p)++;
		got++;
	}
	return n ? got == n : got > 0;
}

/* ".frac" at *p (if any) as nanoseconds. */
static bool fraction(const char **p, long long *ns)
{
	long long scale = NS / 10;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	for (; isdigit((unsigned char)**p); (*p)++, scale /= 10)
		*ns += (**p - '0') * scale;
	return true;
}

/* HH:MM, HH:MM:SS or HH:MM:SS.frac at *p. */
static bool clock_time(const char **p, struct tm *tm, long long *ns)
{
	long long h, m, s = 0;

	*ns = 0;
	if (!digits(p, 2, &h) || *(*p)++ != ':' || !digits(p, 2, &m))
		return false;
	if (**p == ':') {
		(*p)++;
		if (!digits(p, 2, &s) || !fraction(p, ns))
			return false;
	}
	if (h > 23 || m > 59 || s > 60)
		return false;
	tm->tm_hour = (int)h;
	tm->tm_min = (int)m;
	tm->tm_sec = (int)s;
	return true;
}

/* "Z", "+HH:MM" or "-HH:MM" as seconds east of UTC; *given false when there is none. */
static bool zone(const char **p, bool *given, long long *east)
{
	long long h, m;
	int sign;

	*given = **p != '\0';
	*east = 0;
	if (**p == 'Z') {
		(*p)++;
		return true;
	}
	if (**p != '+' && **p != '-')
		return !*given;
	sign = *(*p)++ == '-' ? -1 : 1;
	if (!digits(p, 2, &h) || *(*p)++ != ':' || !digits(p, 2, &m) || h > 23 || m > 59)
		return false;
	*east = sign * (h * 3600 + m * 60);
	return true;
}

/* tm (no zone: local time) as seconds since the epoch. */
static long long seconds_of(struct tm *tm, bool utc, long long east)
{
	tm->tm_isdst = -1;
	return utc ? (long long)timegm(tm) - east : (long long)mktime(tm);
}

int stk_time_arg_parse(const char *text, int64_t first, int64_t *ns, char *err, size_t err_len)
{
	const char *p = text;
	struct tm tm = { 0 };
	long long v, frac = 0, east, secs;
	bool utc;

	if (digits(&p, 0, &v) && (*p == '\0' || *p == '.')) { /* seconds from the first event */
		if (!fraction(&p, &frac) || *p || v > MAX_SECONDS)
			goto bad;
		*ns = first + v * NS + frac;
		return 0;
	}
	p = text;
	if (strlen(text) >= 10 && text[4] == '-') { /* a date and time */
		long long y, mo, d;

		if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' || !digits(&p, 2, &d) ||
		    (*p != 'T' && *p != ' ') || mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1970)
			goto bad;
		p++;
		tm.tm_year = (int)(y - 1900);
		tm.tm_mon = (int)(mo - 1);
		tm.tm_mday = (int)d;
	} else { /* a time on the first event's day */
		time_t day = (time_t)(first / NS);

		localtime_r(&day, &tm);
	}
	if (!clock_time(&p, &tm, &frac) || !zone(&p, &utc, &east) || *p)
		goto bad;
	secs = seconds_of(&tm, utc, east);
	if (secs < 0 || secs > MAX_SECONDS)
		goto bad;
	*ns = secs * NS + frac;
	return 0;
bad:
	/* tests/fixtures/recordings/expected/ *.bad_time.err hold this line as it was */
	snprintf(err, err_len, "%s: expected seconds from the first event (2.5), HH:MM:SS or "
		 "YYYY-MM-DD HH:MM:SS[.frac][Z|+HH:MM]", text);
	return -1;
}
