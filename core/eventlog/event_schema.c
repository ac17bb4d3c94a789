/* The event log's columns: see event_schema.h. */
#include "core/eventlog/event_schema.h"

const struct stk_pq_column stk_ev_columns[STK_EV_COLS] = {
	[STK_EV_TIME] = { "time", STK_PQ_TIMESTAMP_NS, false },
	[STK_EV_PID] = { "pid", STK_PQ_INT32, false },
	[STK_EV_TID] = { "tid", STK_PQ_INT32, false },
	[STK_EV_COMM] = { "comm", STK_PQ_STRING, false },
	[STK_EV_CPU] = { "cpu", STK_PQ_INT32, false },
	[STK_EV_EVENT] = { "event", STK_PQ_STRING, false },
	[STK_EV_WEIGHT] = { "weight", STK_PQ_INT64, false },
	[STK_EV_UNIT] = { "unit", STK_PQ_STRING, false },
	[STK_EV_STACK] = { "stack", STK_PQ_STRING, true },
	[STK_EV_SPAN] = { "span", STK_PQ_STRING, true },
	[STK_EV_STACK_ID] = { "stack_id", STK_PQ_INT64, true },
	[STK_EV_STATE] = { "state", STK_PQ_STRING, true },
	[STK_EV_FRAMES] = { "frames", STK_PQ_STRING, true },
};
