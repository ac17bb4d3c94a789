/*
 * An event log file that stk record left unfinished (killed, the machine
 * lost power, the disk filled) made whole: the rows of its row groups up to
 * the last checkpoint (core/parquet/parquet_salvage.h), with the footer
 * keys that checkpoint carried, corrected to what was kept (rows, first
 * time) and marked STK_EV_META_RECOVERED. A file that is whole already
 * (closed, not yet renamed) is left as it is.
 */
#ifndef STK_EVENT_RECOVER_H
#define STK_EVENT_RECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the file holds after a recovery. */
struct stk_ev_recovered {
	bool was_whole;    /* it had its footer: nothing written */
	uint64_t rows;
	size_t groups;     /* row groups kept (0 when was_whole) */
	int64_t dropped;   /* bytes after the last checkpoint, cut */
	int64_t first;     /* the earliest row's time (INT64_MAX: no rows) */
	int64_t start, end; /* the capture of the file: stk.start_ns and start + stk.duration_ns */
};

/*
 * Makes the file on fd (open for reading and writing) whole, as above. 0
 * (out filled), or -1 with a one-line err: not an event log stk was
 * writing, no checkpoint, a write failed.
 */
int stk_ev_recover(int fd, struct stk_ev_recovered *out, char *err, size_t err_len);

#endif
