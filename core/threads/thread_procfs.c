#include "core/threads/thread_procfs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/threads/thread_sample.h"

long stk_read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

int stk_parse_task_stat(const char *text, char comm[16], char *state, unsigned long *flags)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	size_t n;

	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -1;
	n = (size_t)(close - open - 1);
	if (n > 15)
		n = 15;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	*state = close[2];
	/* after the state: ppid pgrp session tty_nr tpgid flags */
	const char *p = close + 4;
	for (int field = 0; field < 5; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*flags = strtoul(p, NULL, 10);
	return 0;
}

int32_t stk_parse_task_syscall(const char *text, uint64_t args[6], int32_t *nr)
{
	char *end;
	long v = strtol(text, &end, 10);

	*nr = STK_TSYS_UNKNOWN;
	if (end == text)
		return *nr;
	if (v < 0) {
		*nr = STK_TSYS_NONE;
		return *nr;
	}
	for (int i = 0; i < 6; i++) {
		const char *p = end;
		args[i] = strtoull(p, &end, 16);
		if (end == p)
			return *nr;
	}
	*nr = (int32_t)v;
	return *nr;
}

int stk_parse_task_syscall_sp_pc(const char *text, uint64_t *sp, uint64_t *pc)
{
	uint64_t f[8];
	size_t n = 0;
	char *end;

	long nr = strtol(text, &end, 10);

	if (end == text)
		return -1;
	for (const char *p = end; n < 8;) {
		uint64_t v = strtoull(p, &end, 16);
		if (end == p)
			break;
		f[n++] = v;
		p = end;
	}
	while (*end == ' ' || *end == '\n')
		end++;
	/* -1 SP PC, or NR with its six arguments, SP, PC */
	if (n != (nr < 0 ? 2u : 8u) || *end)
		return -1;
	*sp = f[n - 2];
	*pc = f[n - 1];
	return 0;
}

/* The number after "name:" at a line's start, or -1. */
static int status_field(const char *text, const char *name, uint64_t *v)
{
	size_t len = strlen(name);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *end;

		if (strncmp(line, name, len) != 0 || line[len] != ':')
			continue;
		*v = strtoull(line + len + 1, &end, 10);
		return end == line + len + 1 ? -1 : 0;
	}
	return -1;
}

int stk_parse_status_switches(const char *text, uint64_t *switches)
{
	uint64_t v, nv;

	if (status_field(text, "voluntary_ctxt_switches", &v) || status_field(text, "nonvoluntary_ctxt_switches", &nv))
		return -1;
	*switches = v + nv;
	return 0;
}

size_t stk_parse_proc_stack(const char *text, const char **names, size_t *lens, size_t max)
{
	size_t n = 0;

	for (const char *line = text; *line && n < max;) {
		const char *eol = strchr(line, '\n'), *sym = strstr(line, "] ");
		if (!eol)
			eol = line + strlen(line);
		if (sym && sym < eol) {
			sym += 2;
			size_t len = strcspn(sym, "+ \n");
			if (len) {
				names[n] = sym;
				lens[n++] = len;
			}
		}
		line = *eol ? eol + 1 : eol;
	}
	return n;
}

char *stk_fold_proc_stack(const char *text, char *wchan, size_t wchan_len)
{
	const char *names[128];
	size_t lens[128], n = stk_parse_proc_stack(text, names, lens, 128), total = 0;

	wchan[0] = '\0';
	for (size_t i = 0; i < n; i++)
		total += lens[i] + 1;
	for (size_t i = 0; i < n; i++) {
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)lens[i], names[i]);
		if (!stk_is_sched_frame(name)) {
			snprintf(wchan, wchan_len, "%s", name);
			break;
		}
	}
	if (!n)
		return NULL;
	char *folded = malloc(total);
	if (!folded)
		return NULL;
	char *p = folded;
	for (size_t i = n; i-- > 0;) {
		memcpy(p, names[i], lens[i]);
		p += lens[i];
		*p++ = i ? ';' : '\0';
	}
	return folded;
}

int stk_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	unsigned long long r, w;

	if (sscanf(text, "%llu %llu", &r, &w) != 2)
		return -1;
	*run_ns = r;
	*wait_ns = w;
	return 0;
}

/*
 * Each sample adds the share of the thread's runnable time since the
 * previous sample that it spent on a CPU (its lifetime share at the first
 * one) and is RUN when the credit reaches one half. So a thread's RUN
 * samples add up to its on-CPU share, where a majority vote per interval
 * would call a thread that gets 48% of a CPU RUNQ most of the time.
 */
bool stk_run_split_on_cpu(struct stk_run_split *s, uint64_t run_ns, uint64_t wait_ns)
{
	uint64_t ran = run_ns, waited = wait_ns;

	if (s->valid) {
		ran = run_ns >= s->run_ns ? run_ns - s->run_ns : 0;
		waited = wait_ns >= s->wait_ns ? wait_ns - s->wait_ns : 0;
	}
	*s = (struct stk_run_split){ run_ns, wait_ns, s->credit, true };
	/* The wait is only added when the thread gets a CPU again: a thread
	   that did not run at all since the previous sample waited all along. */
	if (ran == 0)
		return false;
	s->credit += (double)ran / (double)(ran + waited);
	if (s->credit < 0.5)
		return false;
	s->credit -= 1.0;
	return true;
}
