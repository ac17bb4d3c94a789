/*
 * The symbolizer's fixture processes (tests/fixtures, built by the
 * Makefile): each prints its functions' addresses ("sym NAME ADDR") and
 * "ready", then waits to be killed.
 */
#ifndef STK_TEST_SYM_FIXTURE_H
#define STK_TEST_SYM_FIXTURE_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SYMS 8

struct fixture {
	pid_t pid; /* kept after reap(): the tests resolve addresses of exited processes */
	int alive;
	char path[PATH_MAX]; /* canonical: what /proc/PID/maps shows */
	size_t n;
	char names[MAX_SYMS][64];
	uint64_t addrs[MAX_SYMS];
};

/* build/tests/unit -> build/tests/fixtures/NAME */
static inline int fixture_path(const char *name, char *out, size_t len)
{
	char exe[PATH_MAX], tmp[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -1;
	*slash = '\0';
	snprintf(tmp, sizeof(tmp), "%s/fixtures/%s", exe, name);
	if (!realpath(tmp, exe))
		return -1;
	snprintf(out, len, "%s", exe);
	return 0;
}

/* Reads a fixture's "sym NAME ADDR" lines from fd (closed) up to "ready". 0, or -1. */
static inline int fixture_read_ready(int fd, struct fixture *fx)
{
	char line[256];
	FILE *in = fdopen(fd, "r");

	if (!in) {
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		char name[64];
		unsigned long long addr;

		if (strcmp(line, "ready\n") == 0) {
			fclose(in);
			return 0;
		}
		if (fx->n < MAX_SYMS && sscanf(line, "sym %63s %llx", name, &addr) == 2) {
			snprintf(fx->names[fx->n], sizeof(fx->names[0]), "%s", name);
			fx->addrs[fx->n++] = addr;
		}
	}
	fclose(in);
	return -1;
}

/* Runs the fixture at path and reads its "sym NAME ADDR" lines up to "ready". */
static inline int spawn_path(const char *path, struct fixture *fx)
{
	int fds[2];

	memset(fx, 0, sizeof(*fx));
	snprintf(fx->path, sizeof(fx->path), "%s", path);
	if (pipe(fds))
		return -1;
	fx->pid = fork();
	if (fx->pid < 0)
		return -1;
	fx->alive = 1;
	if (fx->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	return fixture_read_ready(fds[0], fx);
}

static inline int spawn(const char *name, struct fixture *fx)
{
	char path[PATH_MAX];

	if (fixture_path(name, path, sizeof(path)))
		return -1;
	return spawn_path(path, fx);
}

static inline void reap(struct fixture *fx)
{
	if (fx->alive && fx->pid > 0) {
		kill(fx->pid, SIGKILL);
		waitpid(fx->pid, NULL, 0);
	}
	fx->alive = 0;
}

static inline uint64_t addr_of(const struct fixture *fx, const char *name)
{
	for (size_t i = 0; i < fx->n; i++)
		if (strcmp(fx->names[i], name) == 0)
			return fx->addrs[i];
	return 0;
}

#endif
