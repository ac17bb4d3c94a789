#include "core/probe/kernel_match.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/base/tracefs.h"

/* The first word of line, NUL-terminated in place ("name [module]" -> "name"). */
static char *first_word(char *line)
{
	line[strcspn(line, " \t\r\n")] = '\0';
	return line;
}

/* kallsyms "addr type name [module]": the name of a text symbol, or NULL. */
static char *kallsyms_text_name(char *line)
{
	char *type, *name;

	if (!(type = strchr(line, ' ')))
		return NULL;
	type++;
	if (!strchr("tTwW", *type) || type[1] != ' ')
		return NULL;
	name = type + 2;
	return first_word(name);
}

static bool is_padding_or_clone(const char *name)
{
	return strncmp(name, "__pfx_", 6) == 0 || strncmp(name, "__cfi_", 6) == 0 || strchr(name, '.') != NULL;
}

static int read_blacklist(FILE *f, struct stk_name_list *out)
{
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char *tab = strpbrk(line, " \t");
		if (tab && stk_name_list_add(out, first_word(tab + 1 + strspn(tab + 1, " \t")), (size_t)-1))
			return -1;
	}
	stk_name_list_sort_unique(out);
	return 0;
}

int stk_match_kernel_functions(const struct stk_kfunc_sources *src, const struct stk_name_match *m,
			       struct stk_name_list *ok, struct stk_name_list *untraceable)
{
	struct stk_name_list black = { 0 }, in_kallsyms = { 0 };
	char line[1024];
	int ret = -1;

	if (!src->traceable && !src->kallsyms)
		return -1;
	if (read_blacklist(src->blacklist, &black))
		goto out;
	while (src->traceable && fgets(line, sizeof(line), src->traceable)) {
		const char *name = first_word(line);
		/* clones ("f.part.0") have no BTF for fentry and are not what a wildcard means */
		if (m->kind != STK_MATCH_EXACT && is_padding_or_clone(name))
			continue;
		if (*name && stk_name_matches(m, name) &&
		    stk_name_list_add(stk_name_list_contains(&black, name) ? untraceable : ok, name, (size_t)-1))
			goto out;
	}
	stk_name_list_sort_unique(ok);
	while (src->kallsyms && fgets(line, sizeof(line), src->kallsyms)) {
		const char *name = kallsyms_text_name(line);
		if (!name || !stk_name_matches(m, name))
			continue;
		if (m->kind != STK_MATCH_EXACT && is_padding_or_clone(name))
			continue;
		if (stk_name_list_add(&in_kallsyms, name, (size_t)-1))
			goto out;
	}
	stk_name_list_sort_unique(&in_kallsyms);
	for (size_t i = 0; i < in_kallsyms.n; i++) {
		const char *name = in_kallsyms.names[i];
		/* With ftrace's list, a function missing from it cannot be traced. */
		bool traceable = src->traceable ? stk_name_list_contains(ok, name)
						: !stk_name_list_contains(&black, name);
		if (src->traceable && traceable)
			continue;
		if (stk_name_list_add(traceable ? ok : untraceable, name, (size_t)-1))
			goto out;
	}
	stk_name_list_sort_unique(ok);
	stk_name_list_sort_unique(untraceable);
	ret = 0;
out:
	stk_name_list_free(&black);
	stk_name_list_free(&in_kallsyms);
	return ret;
}

int stk_match_tracepoints(FILE *available_events, const struct stk_name_match *cat,
			  const struct stk_name_match *ev, struct stk_name_list *out)
{
	char line[512];

	while (fgets(line, sizeof(line), available_events)) {
		char *name = first_word(line), *colon = strchr(name, ':');
		if (!colon)
			continue;
		*colon = '\0';
		bool hit = stk_name_matches(cat, name) && stk_name_matches(ev, colon + 1);
		*colon = ':';
		if (hit && stk_name_list_add(out, name, (size_t)-1))
			return -1;
	}
	stk_name_list_sort_unique(out);
	return 0;
}

int stk_find_tracepoints(const struct stk_name_match *cat, const struct stk_name_match *ev, const char *cat_text,
			 const char *ev_text, struct stk_name_list *out, char *err, size_t len)
{
	const char *how;
	char why[512];
	FILE *f;
	int ret;

	if (stk_tracefs_ensure(&how, why, sizeof(why))) {
		snprintf(err, len, "tracepoints need tracefs: %s", why);
		return -1;
	}
	if (!(f = stk_tracefs_open("available_events"))) {
		snprintf(err, len, "cannot read tracefs available_events: %s", strerror(errno));
		return -1;
	}
	ret = stk_match_tracepoints(f, cat, ev, out);
	fclose(f);
	if (ret)
		snprintf(err, len, "out of memory");
	else if (out->n == 0 && (ret = -1))
		snprintf(err, len, "unknown tracepoint '%s:%s' (none in available_events matches)", cat_text, ev_text);
	return ret;
}
