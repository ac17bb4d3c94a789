/* The event log's columns: see event_schema.h. */
#include "core/eventlog/event_schema.h"

const struct stk_pq_column stk_ev_columns[STK_EV_COLS] = {
	[STK_EV_TIME] = { "time", STK_PQ_TIMESTAMP_NS, false, false },
	[STK_EV_PID] = { "pid", STK_PQ_INT32, false, false },
	[STK_EV_TID] = { "tid", STK_PQ_INT32, false, false },
	[STK_EV_COMM] = { "comm", STK_PQ_STRING, false, false },
	[STK_EV_CPU] = { "cpu", STK_PQ_INT32, false, false },
	[STK_EV_EVENT] = { "event", STK_PQ_STRING, false, false },
	[STK_EV_WEIGHT] = { "weight", STK_PQ_INT64, false, false },
	[STK_EV_UNIT] = { "unit", STK_PQ_STRING, false, false },
	[STK_EV_STACK] = { "stack", STK_PQ_STRING, true, false },
	[STK_EV_SPAN] = { "span", STK_PQ_STRING, true, false },
	[STK_EV_STACK_ID] = { "stack_id", STK_PQ_INT64, true, false },
	[STK_EV_STATE] = { "state", STK_PQ_STRING, true, false },
	[STK_EV_FRAMES] = { "frames", STK_PQ_STRING, true, false },
	[STK_EV_SYSCALL] = { "syscall", STK_PQ_STRING, true, true },
	[STK_EV_SYSCALL_NR] = { "syscall_nr", STK_PQ_INT32, true, true },
	[STK_EV_WCHAN] = { "wchan", STK_PQ_STRING, true, true },
	[STK_EV_FILE] = { "file", STK_PQ_STRING, true, true },
	[STK_EV_DEVICE] = { "device", STK_PQ_STRING, true, true },
	[STK_EV_BYTES] = { "bytes", STK_PQ_INT64, true, true },
	[STK_EV_OP] = { "op", STK_PQ_STRING, true, true },
	[STK_EV_HOST] = { "host", STK_PQ_STRING, true, true },
};
