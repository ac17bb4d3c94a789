/*
 * The event log's Parquet schema (docs/eventlog.md): one row per event, the
 * columns below in this order, and the footer's key/value metadata that
 * lets `stk report` print exactly what the capture printed. Shared by the
 * writer (event_writer.h) and the reader (event_reader.h).
 */
#ifndef STK_EVENT_SCHEMA_H
#define STK_EVENT_SCHEMA_H

#include "core/parquet/parquet_schema.h"

enum stk_ev_col {
	STK_EV_TIME,     /* TIMESTAMP(NANOS, UTC): the sample, or an interval's start */
	STK_EV_PID,      /* INT32 */
	STK_EV_TID,      /* INT32 */
	STK_EV_COMM,     /* STRING */
	STK_EV_CPU,      /* INT32 */
	STK_EV_EVENT,    /* STRING: "cpu", "offcpu", the probe, "span" */
	STK_EV_WEIGHT,   /* INT64 */
	STK_EV_UNIT,     /* STRING: "count", "nanoseconds" */
	STK_EV_STACK,    /* STRING, NULL without a stack: frames root first joined by ';' as -f prints them */
	STK_EV_SPAN,     /* STRING, NULL outside a span: "FUNC" or "FUNC=VALUE" */
	STK_EV_STACK_ID, /* INT64, NULL without a stack: one per stack stk told apart (chains, ids, copies) */
	STK_EV_STATE,    /* STRING, NULL where not known: the thread's state ("S", "D", "R", ...) */
	STK_EV_FRAMES,   /* STRING, on the first row of each stack_id in each row group: core/eventlog/frames_codec.h */
	/* Added with stk record (schema 2; files before lack them: NULL), NULL where a kind has none (docs/eventlog.md) */
	STK_EV_SYSCALL,    /* STRING: the system call (syscall; read, write, send, recv made by one; state: the thread's) */
	STK_EV_SYSCALL_NR, /* INT32: its number on the recording's architecture */
	STK_EV_WCHAN,      /* STRING, state: the kernel function a sleeping thread waits in */
	STK_EV_FILE,       /* STRING, state: the file behind the call's descriptor */
	STK_EV_DEVICE,     /* STRING, iorq: the block device ("nvme0n1"; "259:0" where /sys has no name) */
	STK_EV_BYTES,      /* INT64, iorq: the request's bytes */
	STK_EV_OP,         /* STRING, block, block-time, iorq: "read" or "write" */
	/* Added for fleets (files before lack it: NULL) */
	STK_EV_HOST,       /* STRING: the host the recording was made on (--host; its name by default) */
	STK_EV_COLS,
};

extern const struct stk_pq_column stk_ev_columns[STK_EV_COLS];

/* The value of the metadata key STK_EV_META_SCHEMA in every file stk writes; files of the first
 * version (without the added columns, one kind of event) read as well. */
#define STK_EV_SCHEMA "stk-eventlog 2"
#define STK_EV_SCHEMA_1 "stk-eventlog 1"

/* Footer metadata keys. */
#define STK_EV_META_SCHEMA "stk.schema"
#define STK_EV_META_COMMAND "stk.command"
#define STK_EV_META_APPLET "stk.applet"
#define STK_EV_META_EVENT "stk.event"            /* the capture's own events ("cpu", ...) */
#define STK_EV_META_EVENTS "stk.events"          /* rows written */
#define STK_EV_META_LOST "stk.events_lost"       /* events the kernel found no room for */
#define STK_EV_META_START "stk.start_ns"         /* capture start, ns since the epoch */
#define STK_EV_META_DURATION "stk.duration_ns"
#define STK_EV_META_FIRST "stk.first_ns"         /* the earliest time of any row */
#define STK_EV_META_PER_THREAD "stk.per_thread"  /* 1: the capture kept threads apart */
#define STK_EV_META_DIVISOR "stk.value_divisor"  /* the capture printed weight sums divided by this */
#define STK_EV_META_SAMPLE_NS "stk.sample_ns"    /* profile: the time one sample stands for */
/*
 * A recording of several kinds (stk record, stk resources): one line per kind
 * (LF between), its fields tab-separated: event, unit, value type, value
 * unit, divisor, sample_ns, events lost. The report's value types in that
 * order; stk.event, stk.value_divisor and stk.sample_ns then say the first's.
 */
#define STK_EV_META_KINDS "stk.kinds"
/*
 * The kinds a capture sampled (absent: it took every event): one line per
 * kind, tab-separated: event, N (one event in N taken, its weight N times
 * its own), how the one was chosen. Weights sum to unbiased totals.
 */
#define STK_EV_META_SAMPLED "stk.sampled"
/* The capture's report (struct stk_report) and output options (struct stk_output_opts). */
#define STK_EV_META_TITLE "stk.report.title"
#define STK_EV_META_VALUE_TYPE "stk.report.value_type"
#define STK_EV_META_VALUE_UNIT "stk.report.value_unit"
#define STK_EV_META_PERIOD_TYPE "stk.report.period_type"
#define STK_EV_META_PERIOD_UNIT "stk.report.period_unit"
#define STK_EV_META_PERIOD "stk.report.period"
#define STK_EV_META_OUTPUT "stk.output"          /* letters: a annotate, t show_tid, n no_task, s offsets, d delimiter, v verbose, l lines */
/*
 * A file of stk record's series (-o DIR/, event_series.h): the events a full
 * disk kept out before it opened (counted in stk.events_lost too); and, in a
 * file made whole after its writer stopped, what was kept and cut
 * (event_recover.h).
 */
#define STK_EV_META_LOST_FULL "stk.events_lost_disk_full"
#define STK_EV_META_RECOVERED "stk.recovered"

#endif
