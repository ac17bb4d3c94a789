/*
 * Where a classic tracepoint's record holds a field, from the event's
 * format file in tracefs ("field:unsigned int nr_sector; offset:24;
 * size:4; signed:0;"): records change between kernels (block's rwbs grew
 * from 8 to 10 bytes, ioprio came before it), so BPF programs reading a
 * record are told the offsets at load, never compiled with them.
 */
#ifndef STK_TRACE_FORMAT_H
#define STK_TRACE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

struct stk_trace_field {
	unsigned offset, size;
};

/* The field NAME (an array's name without its "[N]") in format text. 0, or -1 when absent. */
int stk_trace_format_field(FILE *format, const char *name, struct stk_trace_field *out);
/*
 * The field of EVENT ("category/name") from tracefs (where libbpf looks:
 * /sys/kernel/tracing, else /sys/kernel/debug/tracing). 0, or -1 with why
 * (no such event, no such field).
 */
int stk_trace_event_field(const char *event, const char *name, struct stk_trace_field *out, char *why, size_t len);

#endif
