#include "core/base/caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stk_caps_parse_status(const char *status_text, struct stk_caps *caps)
{
	const char *line = strstr(status_text, "\nCapEff:");

	if (!line && strncmp(status_text, "CapEff:", 7) == 0)
		line = status_text;
	else if (line)
		line++;
	if (!line)
		return -1;
	char *end;
	unsigned long long value = strtoull(line + strlen("CapEff:"), &end, 16);
	if (end == line + strlen("CapEff:"))
		return -1;
	caps->effective = value;
	return 0;
}

int stk_caps_read_self(struct stk_caps *caps)
{
	FILE *f = fopen("/proc/self/status", "re");
	char text[8192];
	size_t n;

	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return stk_caps_parse_status(text, caps);
}

bool stk_caps_has(const struct stk_caps *caps, int cap)
{
	return (caps->effective >> cap) & 1;
}

bool stk_caps_can_trace(const struct stk_caps *caps)
{
	return stk_caps_has(caps, STK_CAP_SYS_ADMIN) ||
	       (stk_caps_has(caps, STK_CAP_BPF) && stk_caps_has(caps, STK_CAP_PERFMON));
}

void stk_caps_describe(const struct stk_caps *caps, char *buf, size_t len)
{
	static const struct {
		int cap;
		const char *name;
	} named[] = {
		{ STK_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
		{ STK_CAP_BPF, "CAP_BPF" },
		{ STK_CAP_PERFMON, "CAP_PERFMON" },
		{ 19, "CAP_SYS_PTRACE" },
		{ 12, "CAP_NET_ADMIN" },
		{ 2, "CAP_DAC_READ_SEARCH" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!stk_caps_has(caps, named[i].cap))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", named[i].name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		snprintf(buf, len, "none");
}
