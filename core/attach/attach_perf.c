#include "core/attach/attach_perf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

struct stk_perf_attachment {
	struct bpf_link **links; /* each link owns its perf event fd */
	size_t n;
};

static int open_software(int cpu, const struct stk_sampling *s)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = s->software_event,
		.freq = !s->by_period,
	};

	if (s->by_period)
		attr.sample_period = s->value;
	else
		attr.sample_freq = s->value;
	return (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

struct stk_perf_attachment *stk_attach_cpu_sampling(struct bpf_program *prog, const int *cpus,
						    size_t n_cpus, const struct stk_sampling *s,
						    size_t *attached, char *err, size_t errlen)
{
	struct stk_perf_attachment *a = calloc(1, sizeof(*a));
	int first_errno = 0;

	if (!a || !(a->links = calloc(n_cpus ? n_cpus : 1, sizeof(*a->links)))) {
		free(a);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n_cpus; i++) {
		int fd = open_software(cpus[i], s);
		if (fd < 0) {
			/* ENODEV: the CPU went offline since we listed it. */
			if (errno != ENODEV && !first_errno)
				first_errno = errno;
			continue;
		}
		struct bpf_link *link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			if (!first_errno)
				first_errno = errno;
			close(fd);
			continue;
		}
		a->links[a->n++] = link;
	}
	*attached = a->n;
	if (!a->n) {
		snprintf(err, errlen, "could not attach to a %s event on any CPU: %s",
			 s->software_event == PERF_COUNT_SW_PAGE_FAULTS ? "page-faults" : "cpu-clock",
			 strerror(first_errno ? first_errno : ENODEV));
		stk_perf_attachment_destroy(a);
		return NULL;
	}
	return a;
}

void stk_perf_attachment_destroy(struct stk_perf_attachment *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		bpf_link__destroy(a->links[i]);
	free(a->links);
	free(a);
}
