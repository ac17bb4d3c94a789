/* Whether stk runs in the host's (initial) PID namespace. */
#ifndef STK_PIDNS_H
#define STK_PIDNS_H

#include <stdbool.h>

/*
 * BPF sees host PIDs. From /proc/self/status NSpid: one entry means stk's
 * PIDs are host PIDs. Parsed from status text for testing.
 */
bool stk_pidns_is_host_text(const char *status_text);
bool stk_pidns_is_host(void);

#endif
