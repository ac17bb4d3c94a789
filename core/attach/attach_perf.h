/* Attaching a perf_event program to a sampling software event on each CPU. */
#ifndef STK_ATTACH_PERF_H
#define STK_ATTACH_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_program;
struct stk_perf_attachment;

struct stk_sampling {
	bool by_period;  /* sample every `value` CPU-clock nanoseconds... events (-c) */
	uint64_t value;  /* frequency in Hz, or the period */
	uint64_t software_event; /* PERF_COUNT_SW_*: 0 is cpu-clock; page faults for stk resources */
};

/*
 * Opens a software sampling event (cpu-clock unless s says another) on
 * every CPU in cpus and attaches prog to each. Offline CPUs listed by the caller are skipped
 * (counted in *skipped). NULL with err set when nothing could be attached.
 */
struct stk_perf_attachment *stk_attach_cpu_sampling(struct bpf_program *prog, const int *cpus,
						    size_t n_cpus, const struct stk_sampling *s,
						    size_t *attached, char *err, size_t errlen);
/* Detaches and closes everything. NULL is fine. */
void stk_perf_attachment_destroy(struct stk_perf_attachment *a);

#endif
