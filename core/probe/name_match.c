#include "core/probe/name_match.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

int stk_name_match_init(struct stk_name_match *m, const char *pattern, bool regex, char *err, size_t len)
{
	memset(m, 0, sizeof(*m));
	if (strlen(pattern) >= sizeof(m->pattern) - 4) {
		snprintf(err, len, "'%s': pattern too long", pattern);
		return -1;
	}
	snprintf(m->pattern, sizeof(m->pattern), "%s", pattern);
	if (!regex) {
		m->kind = strpbrk(pattern, "*?[") ? STK_MATCH_GLOB : STK_MATCH_EXACT;
		return 0;
	}
	char anchored[sizeof(m->pattern) + 4];
	snprintf(anchored, sizeof(anchored), "^(%s)", pattern);
	int rc = regcomp(&m->re, anchored, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];
		regerror(rc, &m->re, why, sizeof(why));
		snprintf(err, len, "bad regular expression '%s': %s", pattern, why);
		return -1;
	}
	m->kind = STK_MATCH_REGEX;
	return 0;
}

bool stk_name_matches(const struct stk_name_match *m, const char *name)
{
	switch (m->kind) {
	case STK_MATCH_EXACT: return strcmp(m->pattern, name) == 0;
	case STK_MATCH_GLOB: return fnmatch(m->pattern, name, 0) == 0;
	case STK_MATCH_REGEX: return regexec(&m->re, name, 0, NULL, 0) == 0;
	}
	return false;
}

void stk_name_match_free(struct stk_name_match *m)
{
	if (m->kind == STK_MATCH_REGEX)
		regfree(&m->re);
	m->kind = STK_MATCH_EXACT;
}
