/* The caller's effective capabilities, read from /proc/self/status. */
#ifndef STK_CAPS_H
#define STK_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STK_CAP_SYS_ADMIN 21
#define STK_CAP_PERFMON 38
#define STK_CAP_BPF 39

struct stk_caps {
	uint64_t effective;
};

/* Parses the CapEff line of a /proc/PID/status text. 0 on success, -1 if absent. */
int stk_caps_parse_status(const char *status_text, struct stk_caps *caps);
int stk_caps_read_self(struct stk_caps *caps);
bool stk_caps_has(const struct stk_caps *caps, int cap);
/* Loading and attaching tracing programs needs CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON. */
bool stk_caps_can_trace(const struct stk_caps *caps);
/* "CAP_SYS_ADMIN CAP_BPF ..." for the capabilities that matter to stk, or "none". */
void stk_caps_describe(const struct stk_caps *caps, char *buf, size_t len);

#endif
