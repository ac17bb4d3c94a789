#include "core/threads/thread_table.h"

#include <string.h>
#include <time.h>

#define MAX_WIDTH 48 /* longer values are cut, except in the last column */

void stk_format_utc(int64_t wall_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	char date[32];

	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03d", date, (int)(wall_ns / 1000000 % 1000));
}

static const char *shown(const char *v)
{
	return v[0] ? v : "-";
}

void stk_thread_table_print(FILE *out, const struct stk_thread_table *t)
{
	size_t n = t->top && t->top < t->n_rows ? t->top : t->n_rows;
	size_t ncol = t->spec->n;
	int width[STK_GROUP_MAX_COLS];
	char from[40], to[40], upper[32];

	stk_format_utc(t->start_ns, from, sizeof(from));
	stk_format_utc(t->end_ns, to, sizeof(to));
	fprintf(out, "\n%s - %s UTC, %llu samples, source %s", from, to + 11, (unsigned long long)t->samples,
		t->source);
	if (n < t->n_rows)
		fprintf(out, ", top %zu of %zu groups", n, t->n_rows);
	fputs("\n\n", out);
	for (size_t c = 0; c < ncol; c++) {
		width[c] = (int)strlen(stk_tcol_name(t->spec->cols[c]));
		for (size_t r = 0; r < n; r++) {
			int w = (int)strlen(shown(t->rows[r].values[c]));
			if (w > width[c])
				width[c] = w;
		}
		if (width[c] > MAX_WIDTH && c + 1 < ncol)
			width[c] = MAX_WIDTH;
	}
	fprintf(out, "%11s", "AVG_THREADS");
	for (size_t c = 0; c < ncol; c++) {
		size_t k = 0;
		for (const char *p = stk_tcol_name(t->spec->cols[c]); *p && k < sizeof(upper) - 1; p++)
			upper[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		upper[k] = '\0';
		fprintf(out, "  %-*s", c + 1 < ncol ? width[c] : 0, upper);
	}
	fputc('\n', out);
	for (size_t r = 0; r < n; r++) {
		double avg = t->samples ? (double)t->rows[r].count / (double)t->samples : 0.0;
		fprintf(out, "%11.2f", avg);
		for (size_t c = 0; c < ncol; c++)
			fprintf(out, "  %-*.*s", c + 1 < ncol ? width[c] : 0, c + 1 < ncol ? width[c] : 4096,
				shown(t->rows[r].values[c]));
		fputc('\n', out);
	}
	if (!n)
		fputs("          -  (no active threads sampled)\n", out);
	fflush(out);
}
