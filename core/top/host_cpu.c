/* The host's CPU use from /proc/stat (host_cpu.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/base/sysfs_read.h"
#include "core/top/host_cpu.h"

/* The first line's jiffies: busy is all but idle and iowait. 0, or -1. */
static int read_stat(uint64_t *busy, uint64_t *total)
{
	char text[512];
	uint64_t v[8] = { 0 };

	if (stk_read_text("/proc/stat", text, sizeof(text)) ||
	    sscanf(text, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			 " %" SCNu64, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
	return 0;
}

void stk_host_cpu_init(struct stk_host_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_stat(&c->busy, &c->total);
}

void stk_host_cpu_line(struct stk_host_cpu *c, char *buf, size_t len)
{
	uint64_t busy, total;

	buf[0] = '\0';
	if (read_stat(&busy, &total))
		return;
	if (total > c->total && busy >= c->busy)
		snprintf(buf, len, "CPU %.0f%% busy of %ld", 100.0 * (double)(busy - c->busy) / (double)(total - c->total),
			 c->cpus);
	c->busy = busy;
	c->total = total;
}
