/* --span options: see span_spec.h. */
#include "core/probe/span_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/probe/probe_pattern.h"

#define FORMS "LIB:FUNC[:argN] or u:LIB:PROVIDER:START,END[:argN]"

/* A trailing ":argN" off text into *arg (-1 when there is none). 0, or -1 when N is not a number. */
static int take_arg(char *text, int *arg)
{
	char *colon = strrchr(text, ':'), *end;
	long n;

	*arg = -1;
	if (!colon || strncmp(colon + 1, "arg", 3) != 0)
		return 0;
	n = strtol(colon + 4, &end, 10);
	if (colon[4] < '0' || colon[4] > '9' || *end || n > 99)
		return -1;
	*arg = (int)n;
	*colon = '\0';
	return 0;
}

int stk_span_spec_parse(const char *text, struct stk_span_spec *s, char *err, size_t len)
{
	struct stk_probe_pattern p;
	char work[2048], why[512], *comma;
	int max;

	memset(s, 0, sizeof(*s));
	if (strlen(text) >= sizeof(work)) {
		snprintf(err, len, "--span %.64s...: too long", text);
		return -1;
	}
	strcpy(work, text);
	if (take_arg(work, &s->arg)) {
		snprintf(err, len, "--span %s: argN needs a number N (arg0 is the first argument)", text);
		return -1;
	}
	s->usdt = strncmp(work, "u:", 2) == 0;
	comma = strrchr(work, ',');
	if (s->usdt != (comma != NULL)) {
		snprintf(err, len, "--span %s: expected %s", text, FORMS);
		return -1;
	}
	if (comma) {
		*comma = '\0';
		snprintf(s->end, sizeof(s->end), "%s", comma + 1);
	}
	if (stk_probe_pattern_parse(work, &p, why, sizeof(why))) {
		snprintf(err, len, "--span %s: %s", text, why);
		return -1;
	}
	if (p.kind != (s->usdt ? STK_PROBE_USDT : STK_PROBE_USER_FUNCTION) || (s->usdt && !p.category[0])) {
		snprintf(err, len, "--span %s: expected %s", text, FORMS);
		return -1;
	}
	if (strpbrk(p.name, "*?[") || strpbrk(s->end, "*?[:") || (s->usdt && !s->end[0])) {
		snprintf(err, len, "--span %s: names must be exact (no wildcards), as %s", text, FORMS);
		return -1;
	}
	max = s->usdt ? STK_SPAN_USDT_ARG_MAX : STK_SPAN_FUNC_ARG_MAX;
	if (s->arg > max) {
		snprintf(err, len, "--span %s: arg%d: %s take arg0 to arg%d", text, s->arg,
			 s->usdt ? "USDT probes" : "functions", max);
		return -1;
	}
	snprintf(s->lib, sizeof(s->lib), "%s", p.lib);
	snprintf(s->provider, sizeof(s->provider), "%s", p.category);
	snprintf(s->start, sizeof(s->start), "%s", p.name);
	snprintf(s->label, sizeof(s->label), "%s", p.name);
	return 0;
}
