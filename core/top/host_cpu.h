/* The host's CPU use between two reads of /proc/stat, for stk top's summary line. */
#ifndef STK_HOST_CPU_H
#define STK_HOST_CPU_H

#include <stddef.h>
#include <stdint.h>

struct stk_host_cpu {
	uint64_t busy, total; /* jiffies at the last read, all CPUs */
	long cpus;
};

void stk_host_cpu_init(struct stk_host_cpu *c);
/* "CPU 37% busy of 2 CPUs (user+system+irq+steal since the last line)"; "" when /proc/stat cannot be read. */
void stk_host_cpu_line(struct stk_host_cpu *c, char *buf, size_t len);

#endif
