/*
 * Writing the event log (event_schema.h) to a Parquet file, a row per event,
 * over core/parquet: row groups go out as they fill, so memory stays bounded
 * however long the capture; a stack's text is stored once per row group
 * (hashed on the group's first row of its id, found by the id after) and its
 * frames only on that first row, each frame line once per group
 * (frame_lines.h). Not thread-safe; strings are copied when passed.
 */
#ifndef STK_EVENT_WRITER_H
#define STK_EVENT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/parquet/parquet_writer.h"

/* A resolved stack as rows refer to it: the same id always with the same text and frames. */
struct stk_ev_stack_ref {
	int64_t id;
	const char *text; /* root first, ';' between frames, valid UTF-8 (stk_ev_utf8_clean) */
	size_t text_len;
	const char *frames; /* core/eventlog/frames_codec.h */
	size_t frames_len;
};

struct stk_ev_row {
	int64_t time; /* ns since the epoch */
	uint32_t pid, tid, cpu;
	const char *comm;  /* up to 16 bytes, NUL-terminated or not */
	/* event and unit are found by their address: strings that live as long as
	 * the writer and never change (an applet's event name, "count") */
	const char *event; /* "cpu", "offcpu", ... */
	int64_t weight;
	const char *unit;  /* "count", "nanoseconds" */
	const struct stk_ev_stack_ref *stack; /* NULL: no stack */
	const char *span;  /* NULL: outside any span */
	char state;        /* 0: not known */
	/* What some kinds add (docs/eventlog.md); NULL, 0 or false: none */
	const char *state_name; /* state: threadstate's name of the state ("RUN", "SLEEP"), instead of the letter */
	int syscall;       /* the system call's number + 1 */
	const char *wchan, *file, *device, *op;
	bool has_bytes;
	int64_t bytes;
	const char *host; /* NULL: none; else a string that stays at its address for the writer's life */
};

struct stk_ev_writer;

/*
 * A writer to out (an empty file at offset 0); opts NULL: the defaults but
 * gzip level 1 (STK_EV_WRITER_OPTS). NULL with err.
 */
#define STK_EV_WRITER_OPTS { .gzip_level = 1 }
struct stk_ev_writer *stk_ev_writer_new(FILE *out, const struct stk_pq_writer_opts *opts, char *err, size_t err_len);
/* One row. 0, or -1 once the writer failed (stk_ev_writer_close says why). */
int stk_ev_writer_add(struct stk_ev_writer *w, const struct stk_ev_row *r);
/*
 * Whether the current row group has stack id already: then a row's stack
 * needs only its id and lengths (text and frames may be NULL).
 */
bool stk_ev_writer_has_stack(const struct stk_ev_writer *w, int64_t id);
/* A footer key/value (event_schema.h's keys), copied. 0 or -1. */
int stk_ev_writer_meta(struct stk_ev_writer *w, const char *key, const char *value);
uint64_t stk_ev_writer_rows(const struct stk_ev_writer *w);
/* The earliest time of any row so far, or INT64_MAX before the first. */
int64_t stk_ev_writer_first_time(const struct stk_ev_writer *w);
/*
 * A writer with checkpoints (opts.checkpoints): the rows so far as a row
 * group and its checkpoint, with the footer keys as they are now (the
 * caller's, and the rows, schema and first time), fflushed: a process
 * killed after this leaves a file recoverable to here (event_recover.h).
 * 0, or -1 once the writer failed.
 */
int stk_ev_writer_checkpoint(struct stk_ev_writer *w);
/* The file's bytes up to its last checkpoint: what a recovery keeps. */
uint64_t stk_ev_writer_checkpointed(const struct stk_ev_writer *w);
/* The errno of the write that failed (ENOSPC...), 0 when none did. */
int stk_ev_writer_errno(const struct stk_ev_writer *w);
/*
 * Writes the rest and the footer (with the schema, rows and first time),
 * fflushes, frees w. 0, or -1 with err (errno: the failed write's).
 */
int stk_ev_writer_close(struct stk_ev_writer *w, char *err, size_t err_len);
/* Frees w, leaving the file incomplete. NULL: nothing. */
void stk_ev_writer_free(struct stk_ev_writer *w);

/* Replaces every byte of s[0..len) that is not part of valid UTF-8 with '?'. */
void stk_ev_utf8_clean(char *s, size_t len);

#endif
