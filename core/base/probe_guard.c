#include "core/base/probe_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ATTEMPTS 30

int stk_guard_event_of(const char *line, pid_t pid, char *out, size_t len)
{
	const char *colon = strchr(line, ':'), *slash, *end;
	char prefix[32];
	size_t n;

	if (!colon || !(slash = strchr(colon, '/')))
		return -1;
	end = colon + 1 + strcspn(colon + 1, " \t\n");
	if (slash > end)
		return -1;
	snprintf(prefix, sizeof(prefix), "libbpf_%u_", (unsigned)pid);
	if (strncmp(slash + 1, prefix, strlen(prefix)) != 0)
		return -1;
	n = (size_t)(end - (colon + 1));
	if (n >= len)
		return -1;
	memcpy(out, colon + 1, n);
	out[n] = '\0';
	return 0;
}

/* Removes pid's events listed in path. Returns how many were still there. */
static int remove_events(const char *path, pid_t pid)
{
	char line[1024], name[512], cmd[600];
	int left = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (stk_guard_event_of(line, pid, name, sizeof(name)))
			continue;
		left++;
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			int n = snprintf(cmd, sizeof(cmd), "-:%s\n", name);
			if (write(fd, cmd, (size_t)n) < 0) {
				/* busy: the perf event is still being released; the next round retries */
			}
			close(fd);
		}
	}
	fclose(f);
	return left;
}

static void close_all_but(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd = d ? dirfd(d) : -1;

	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != keep && fd != dfd)
			close(fd);
	}
	if (d)
		closedir(d);
}

static void guard(int rd, pid_t owner)
{
	static const char *const files[] = {
		"/sys/kernel/tracing/kprobe_events", "/sys/kernel/tracing/uprobe_events",
		"/sys/kernel/debug/tracing/kprobe_events", "/sys/kernel/debug/tracing/uprobe_events",
	};
	char c;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Holding stk's BPF and perf fds would keep its probes alive: keep only the pipe. */
	close_all_but(rd);
	while (read(rd, &c, 1) > 0)
		;
	for (int i = 0; i < ATTEMPTS; i++) {
		int left = 0;
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
			left += remove_events(files[f], owner);
		if (!left)
			break;
		nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
	}
	_exit(0);
}

int stk_probe_guard_start(void)
{
	int p[2];
	pid_t owner = getpid(), child;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (child == 0)
		guard(p[0], owner);
	close(p[0]);
	return p[1];
}
