/* The host column's names: see event_host.h. */
#include "core/eventlog/event_host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static int host_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
	       c == '_' || c == ':';
}

const char *stk_ev_host_invalid(const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return "empty";
	if (n > STK_EV_HOST_MAX)
		return "longer than 253 bytes";
	if (name[0] == '.')
		return "starts with '.'";
	for (size_t i = 0; i < n; i++)
		if (!host_char((unsigned char)name[i]))
			return "only letters, digits and '-', '.', '_', ':' make a host's name";
	return NULL;
}

void stk_ev_host_default(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == 0 && !stk_ev_host_invalid(u.nodename) && strlen(u.nodename) < len)
		snprintf(buf, len, "%s", u.nodename);
	else
		snprintf(buf, len, "localhost");
}
