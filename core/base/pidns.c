#include "core/base/pidns.h"

#include <string.h>
#include <sys/stat.h>

#include "core/base/sysfs_read.h"

bool stk_pidns_is_host_text(const char *status_text)
{
	const char *line = strstr(status_text, "NSpid:");
	int fields = 0;

	/* Kernels before 4.1 have no NSpid line; treat them as host. */
	if (!line)
		return true;
	line += strlen("NSpid:");
	while (*line && *line != '\n') {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line >= '0' && *line <= '9')
			fields++;
		while (*line >= '0' && *line <= '9')
			line++;
		if (*line && *line != '\n' && *line != ' ' && *line != '\t')
			line++;
	}
	return fields <= 1;
}

/* The kernel gives the initial PID namespace this fixed inode (PROC_PID_INIT_INO). */
#define STK_INIT_PID_NS_INO 0xEFFFFFFCULL

bool stk_pidns_is_host(void)
{
	char text[8192];
	struct stat st;

	/* Works even when /proc was remounted for the child namespace (NSpid then lies). */
	if (stat("/proc/self/ns/pid", &st) == 0)
		return (unsigned long long)st.st_ino == STK_INIT_PID_NS_INO;
	if (stk_read_text("/proc/self/status", text, sizeof(text)))
		return true;
	return stk_pidns_is_host_text(text);
}
