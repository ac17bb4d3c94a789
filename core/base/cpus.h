/* CPU lists as the kernel prints them ("0-3,8,10-11"). */
#ifndef STK_CPUS_H
#define STK_CPUS_H

#include <stddef.h>

/* Parses a CPU list into a newly allocated array of CPU numbers (ascending). 0 or -1. */
int stk_cpus_parse_list(const char *text, int **cpus, size_t *n);
/* The online CPUs, from /sys/devices/system/cpu/online. Caller frees *cpus. */
int stk_cpus_online(int **cpus, size_t *n);

#endif
