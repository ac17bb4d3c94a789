/*
 * Matching probe names against a pattern: exact, shell glob ('*', '?',
 * '[...]') or a POSIX extended regular expression (stackcount -r), which,
 * as in bcc, must match at the start of the name.
 */
#ifndef STK_NAME_MATCH_H
#define STK_NAME_MATCH_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

enum stk_name_match_kind { STK_MATCH_EXACT, STK_MATCH_GLOB, STK_MATCH_REGEX };

struct stk_name_match {
	enum stk_name_match_kind kind;
	char pattern[512];
	regex_t re;
};

/* 0, or -1 with err set (a regular expression that does not compile). */
int stk_name_match_init(struct stk_name_match *m, const char *pattern, bool regex, char *err, size_t len);
bool stk_name_matches(const struct stk_name_match *m, const char *name);
void stk_name_match_free(struct stk_name_match *m);

#endif
