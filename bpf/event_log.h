/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event path every stack program shares (bpf/event_types.h): the maps,
 * declared once (defined in bpf/event_log.bpf.c, STK_EVENT_MAPS_HERE; extern
 * elsewhere), and the few steps of sending one event.
 *
 * Old kernels: the ring buffer (5.8) is used only where libbpf finds its
 * helper in the kernel's BTF (bpf_core_enum_value_exists); elsewhere the
 * branch is dead code the verifier never checks and user space refuses event
 * output before loading (core/session/event_sink.c). Where it is used,
 * stk_events always exists (one page when no event is asked for), because the
 * applet's events flag is read at run time.
 */
#ifndef STK_EVENT_LOG_H
#define STK_EVENT_LOG_H

#include <bpf/bpf_core_read.h>
#include "event_types.h"
#include "stack_counting.h"

#ifdef STK_EVENT_MAPS_HERE
#define STK_EVENT_MAP
#else
#define STK_EVENT_MAP extern
#endif

/* Size set by user space before load (a power of two pages). */
STK_EVENT_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} stk_events SEC(".maps");

/* Open spans per thread: the innermost labels each event (--span). */
STK_EVENT_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stk_span_stack);
} stk_spans SEC(".maps");

STK_EVENT_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STK_MAX_SPANS);
	__type(key, u32);
	__type(value, struct stk_span_config);
} stk_span_config SEC(".maps");

STK_EVENT_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_EVSTAT_COUNT);
	__type(key, u32);
	__type(value, u64);
} stk_event_stats SEC(".maps");

/* Events the ring buffer had no room for, by ref.type (one capture may record many kinds). */
STK_EVENT_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STK_EVENT_TYPES);
	__type(key, u32);
	__type(value, u64);
} stk_event_lost SEC(".maps");

#undef STK_EVENT_MAP

/* Whether this kernel's BPF has the ring buffer (a constant libbpf resolves at load). */
#define stk_events_possible() bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_ringbuf_output)

/* The thread's innermost open span, or NULL. */
static __always_inline struct stk_span_frame *stk_span_top(u32 tid)
{
	struct stk_span_stack *st = bpf_map_lookup_elem(&stk_spans, &tid);
	u32 top;

	if (!st || !st->depth)
		return NULL;
	top = st->depth > STK_SPAN_DEPTH ? STK_SPAN_DEPTH - 1 : st->depth - 1;
	/* constant indices: verifiers before 5.13 lose a computed index's bounds */
#pragma unroll
	for (int i = 0; i < STK_SPAN_DEPTH; i++)
		if ((u32)i == top)
			return &st->frames[i];
	return NULL;
}

/* The thread's innermost open span into e (none: e keeps span_label 0). */
static __always_inline void stk_event_span(struct stk_event *e, u32 tid)
{
	struct stk_span_frame *f = stk_span_top(tid);

	if (!f)
		return;
	e->span_label = f->label;
	e->span_value = f->value;
	e->flags |= f->flags & STK_EVENT_SPAN_VALUE;
}

/*
 * Sends e (its span taken first when events asks for spans). The reader is
 * woken only once a quarter of the ring holds data (it also reads on a
 * timer), so a busy CPU does not wake it per event. An event without room is
 * counted (STK_EVSTAT_LOST), never silently gone.
 */
static __always_inline void stk_event_send(struct stk_event *e, u32 events)
{
	u64 avail, flags = BPF_RB_NO_WAKEUP;

	if (!stk_events_possible())
		return;
	if (events & STK_EVENTS_SPANS)
		stk_event_span(e, e->ref.tid);
	avail = bpf_ringbuf_query(&stk_events, BPF_RB_AVAIL_DATA);
	if (avail >= bpf_ringbuf_query(&stk_events, BPF_RB_RING_SIZE) / 4)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&stk_events, e, sizeof(*e), flags)) {
		stk_stat_inc(&stk_event_stats, STK_EVSTAT_LOST);
		if (e->ref.type < STK_EVENT_TYPES)
			stk_stat_inc(&stk_event_lost, e->ref.type);
	}
}

/*
 * An event of kind for the stack ref holds (exactly what the applet counts
 * it under), in thread tid, now, weight 1; the caller sets what differs.
 */
static __always_inline void stk_event_begin(struct stk_event *e, const struct stk_stack_ref *ref, u32 tid, u16 kind)
{
	__builtin_memset(e, 0, sizeof(*e));
	e->ref = *ref;
	e->ref.tid = tid;
	e->time = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->kind = kind;
	e->weight = 1;
}

#endif
