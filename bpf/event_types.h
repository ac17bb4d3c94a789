/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event log's records, shared by BPF and user space: one small record
 * per event (a sample, a block, a probe hit, a span) through the BPF ring
 * buffer stk_events, carrying the stack by reference (struct stk_stack_ref,
 * bpf/stack_types.h: exactly what the applet counts it under), never a copy
 * of the stack. User space resolves each distinct reference to text once
 * (core/session/event_sink.c).
 */
#ifndef STK_EVENT_TYPES_H
#define STK_EVENT_TYPES_H

#include "stack_types.h"

/* What an event is (the Parquet `event` column names it by ref.type, per applet). */
enum stk_event_kind {
	STK_EVENT_CPU = 1,  /* profile: a timed sample, weight 1 */
	STK_EVENT_OFFCPU,   /* offcputime: a block, from time for weight ns */
	STK_EVENT_PROBE,    /* stackcount: a probe hit, weight 1 */
	STK_EVENT_SPAN,     /* a span closed: from time for weight ns, no stack */
	STK_EVENT_RESOURCE, /* stk resources' kinds: what ref.type counts (a syscall or block request: from time) */
	STK_EVENT_KIND_MAX,
};

/* ref.type values a capture's events may have; losses are counted per type below this. */
#define STK_EVENT_TYPES 32

/* Spans open at once on one thread; deeper ones are counted, not kept. */
#define STK_SPAN_DEPTH 8
/* --span options one capture takes (one pair of programs each). */
#define STK_MAX_SPANS 8

/* flags */
#define STK_EVENT_SPAN_VALUE 1 /* span_value is the label's argument */

struct stk_event {
	struct stk_stack_ref ref; /* the stack, as the applet counts it; ref.tid is the event's thread */
	__u64 time;         /* bpf_ktime_get_ns(): the sample, the block's or span's start */
	__u64 weight;       /* 1, or nanoseconds for blocks and spans */
	__u64 span_value;   /* its argument when flags has STK_EVENT_SPAN_VALUE */
	__u32 cpu;
	__u32 span_label;   /* 0: no span; else the --span option's index + 1 (innermost span) */
	__u16 kind;         /* enum stk_event_kind */
	__u8 flags;
	__u8 state;         /* offcputime: the state letter at switch-out ('S', 'D', 'R', ...), else 0 */
	__u32 dev;          /* a block request's device, as the kernel's dev_t (major << 20 | minor), else 0 */
	__u64 bytes;        /* a block request's bytes, else 0 */
};

/* One thread's open spans (stk_spans, keyed by tid). */
struct stk_span_frame {
	__u64 start;
	__u64 value;
	__u32 label; /* the option's index + 1 */
	__u32 flags; /* STK_EVENT_SPAN_VALUE */
};
struct stk_span_stack {
	__u32 depth; /* may exceed STK_SPAN_DEPTH: the frames beyond are not kept */
	__u32 pad;
	struct stk_span_frame frames[STK_SPAN_DEPTH];
};

/* Slots of stk_event_stats (per-CPU counters of what the event path could not keep). */
enum stk_event_stat {
	STK_EVSTAT_LOST,       /* an event found the ring buffer full */
	STK_EVSTAT_SPAN_DEEP,  /* a span opened deeper than STK_SPAN_DEPTH (its events take the one below) */
	STK_EVSTAT_SPAN_FULL,  /* a thread's first span found stk_spans full (not kept) */
	STK_EVSTAT_COUNT,
};

/* Bits of an applet configuration's events field. */
#define STK_EVENTS_ON 1    /* send an event per sample, block or hit */
#define STK_EVENTS_SPANS 2 /* label each with its thread's innermost span */

/* stk_span_config, one entry per --span option (slot). */
struct stk_span_config {
	__u32 arg;     /* 0: a plain label; N + 1: the N-th argument is its value */
	__u32 pad;
};

#endif
