/*
 * Kernel pseudo file systems stk reads: tracefs (tracepoint and legacy
 * kprobe/uprobe attach) and securityfs (the lockdown mode).
 */
#ifndef STK_TRACEFS_H
#define STK_TRACEFS_H

#include <stddef.h>

/*
 * Ensures libbpf finds a mounted tracefs. When the host has none mounted,
 * stk moves itself into a private mount namespace and mounts tracefs there,
 * so nothing changes on the host and nothing is left behind at exit.
 * Must run before the process starts threads. Returns 0, or -1 with err set.
 * *how receives "host", "debugfs" or "private mount".
 */
int stk_tracefs_ensure(const char **how, char *err, size_t errlen);

/* A tracefs file (available_events, ...), where tracefs or debugfs' tracing has it; NULL (errno) when neither does. */
#include <stdio.h>
FILE *stk_tracefs_open(const char *name);

/*
 * The kernel lockdown mode ("none", "integrity", "confidentiality"),
 * mounting securityfs privately if needed. -1 when the kernel has no
 * lockdown LSM. Same threading rule as above.
 */
int stk_lockdown_mode(char *buf, size_t len);

#endif
