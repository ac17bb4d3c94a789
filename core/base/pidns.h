/* Whether stk runs in the host's (initial) PID namespace. */
#ifndef STK_PIDNS_H
#define STK_PIDNS_H

#include <stdbool.h>

/*
 * BPF sees host PIDs. stk's PIDs are host PIDs when /proc/self/ns/pid is the
 * initial namespace; without that file, when /proc/self/status NSpid has one
 * entry (the text form is exposed for testing).
 */
bool stk_pidns_is_host_text(const char *status_text);
bool stk_pidns_is_host(void);

#endif
