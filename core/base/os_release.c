#include "core/base/os_release.h"

#include <stdio.h>
#include <string.h>

/*
 * The shell-like value syntax of os-release(5): a quoted value ends at its
 * closing quote; inside double quotes a backslash escapes $ " \ and `.
 */
static void unquote(const char *v, char *out, size_t len)
{
	size_t n = 0;
	char quote = (*v == '"' || *v == '\'') ? *v++ : 0;

	for (; *v && n + 1 < len; v++) {
		if (quote && *v == quote)
			break;
		if (!quote && (*v == ' ' || *v == '\t' || *v == '#'))
			break;
		if (quote == '"' && *v == '\\' && v[1] && strchr("$\"\\`", v[1]))
			v++;
		out[n++] = *v;
	}
	out[n] = '\0';
}

void stk_os_release_parse(const char *text, struct stk_os_release *os)
{
	char line[1024];

	snprintf(os->id, sizeof(os->id), "linux");
	os->version_id[0] = '\0';
	while (*text) {
		size_t n = strcspn(text, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), text);
		text += n + (text[n] == '\n');
		const char *p = line + strspn(line, " \t");
		if (strncmp(p, "ID=", 3) == 0)
			unquote(p + 3, os->id, sizeof(os->id));
		else if (strncmp(p, "VERSION_ID=", 11) == 0)
			unquote(p + 11, os->version_id, sizeof(os->version_id));
	}
}

int stk_os_release_read(const char *sysroot, struct stk_os_release *os)
{
	static const char *const files[] = { "/etc/os-release", "/usr/lib/os-release" };
	char text[8192];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(os->path, sizeof(os->path), "%s%s", sysroot, files[i]);
		FILE *f = fopen(os->path, "re");
		if (!f)
			continue;
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		stk_os_release_parse(text, os);
		return 0;
	}
	stk_os_release_parse("", os);
	os->path[0] = '\0';
	return -1;
}
