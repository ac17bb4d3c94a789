/*
 * The host column of the event log (event_schema.h): the name a recording
 * gives the machine it was made on, so that many hosts' files read as one
 * table (stk record --host, stk report --host).
 */
#ifndef STK_EVENT_HOST_H
#define STK_EVENT_HOST_H

#include <stddef.h>

/* A host name's bytes at most (a DNS name's). */
#define STK_EV_HOST_MAX 253

/*
 * NULL when name can be a host's: 1 to STK_EV_HOST_MAX letters, digits and
 * "-._:" (a host name, a DNS name, an IPv4 or IPv6 address) not starting
 * with '.', so it is also a file or directory name as it is. Else why not.
 */
const char *stk_ev_host_invalid(const char *name);
/* This machine's name (uname's nodename) into buf, or "localhost" when it has none that fits. */
void stk_ev_host_default(char *buf, size_t len);

#endif
