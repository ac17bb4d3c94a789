/* Field offsets of tracepoint records from tracefs' format files: see trace_format.h. */
#include "core/base/trace_format.h"

#include <errno.h>
#include <string.h>

/* The name in a declaration such as "unsigned int nr_sector" or "char rwbs[10]": its last word. */
static int name_matches(const char *decl, size_t n, const char *name)
{
	size_t end = n, start;

	while (end && decl[end - 1] == ' ')
		end--;
	if (end && decl[end - 1] == ']') {
		while (end && decl[end - 1] != '[')
			end--;
		if (end)
			end--;
	}
	for (start = end; start && decl[start - 1] != ' ' && decl[start - 1] != '*'; start--)
		;
	return end - start == strlen(name) && strncmp(decl + start, name, end - start) == 0;
}

int stk_trace_format_field(FILE *format, const char *name, struct stk_trace_field *out)
{
	char line[512];

	while (fgets(line, sizeof(line), format)) {
		const char *f = strstr(line, "field:"), *semi;
		unsigned offset, size;

		if (!f || !(semi = strchr(f, ';')))
			continue;
		f += strlen("field:");
		if (!name_matches(f, (size_t)(semi - f), name))
			continue;
		const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:");
		if (!o || !s || sscanf(o, "offset:%u;", &offset) != 1 || sscanf(s, "size:%u;", &size) != 1)
			return -1;
		out->offset = offset;
		out->size = size;
		return 0;
	}
	return -1;
}

int stk_trace_event_field(const char *event, const char *name, struct stk_trace_field *out, char *why, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	char path[512];
	FILE *f = NULL;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !f; i++) {
		snprintf(path, sizeof(path), "%s/%s/format", roots[i], event);
		f = fopen(path, "re");
	}
	if (!f) {
		snprintf(why, len, "cannot read the format of tracepoint %s: %s", event, strerror(errno));
		return -1;
	}
	int ret = stk_trace_format_field(f, name, out);
	fclose(f);
	if (ret)
		snprintf(why, len, "tracepoint %s has no field %s", event, name);
	return ret;
}
