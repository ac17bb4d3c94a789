/*
 * Legacy tracefs probes (kprobe_events, uprobe_events) outlive the process
 * that made them unless it removes them, and a process killed with SIGKILL
 * cannot. Before stk creates any, it starts a guard: a child that waits for
 * stk's end (a pipe reaching EOF, however stk ends) and then removes every
 * event libbpf named after stk's PID ("libbpf_PID_..."). After a normal exit
 * libbpf has removed them already and the guard finds nothing.
 */
#ifndef STK_PROBE_GUARD_H
#define STK_PROBE_GUARD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * From a kprobe_events/uprobe_events line ("p:kprobes/libbpf_42_vfs_read_0x0_0 vfs_read+0x0"),
 * the "group/event" to remove when the event belongs to pid. 0 with out set, -1 when not pid's.
 */
int stk_guard_event_of(const char *line, pid_t pid, char *out, size_t len);
/* Starts the guard for this process. Returns the fd that keeps it waiting (close it to release), or -1. */
int stk_probe_guard_start(void);

#endif
