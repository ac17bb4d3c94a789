/*
 * Hour-rotated CSV files for threadstate recordings: DIR/PREFIX-YYYY-MM-DD-HH.csv
 * (UTC hour of each row's own time, so rotation follows whatever clock the
 * caller uses, and tests can inject one). A new or empty file gets the
 * header first. Each row is formatted whole and written with one write() on
 * an O_APPEND descriptor: rows are never interleaved or cut by stk, and a
 * signal (taken through a signalfd, never a handler) cannot split one.
 */
#ifndef STK_CSV_WRITER_H
#define STK_CSV_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct stk_csv_writer;

/* header: the column names, comma separated, without newline. NULL with err set on failure. */
struct stk_csv_writer *stk_csv_writer_new(const char *dir, const char *prefix, const char *header, char *err,
					  size_t errlen);
/*
 * Appends one row (fields quoted where needed) to the file of wall_ns's
 * hour. 0, 1 when this row opened a new file (a rotation, or the first
 * row), or -1 with err set.
 */
int stk_csv_write_row(struct stk_csv_writer *w, int64_t wall_ns, const char *const *fields, size_t n, char *err,
		      size_t errlen);
/* Path of the file written last ("" before the first row). */
const char *stk_csv_current_path(const struct stk_csv_writer *w);
void stk_csv_writer_free(struct stk_csv_writer *w);

/* field as a CSV field (quoted when it holds , " CR or LF) appended to buf at *used. 0, or -1 when full. */
int stk_csv_append_field(char *buf, size_t len, size_t *used, const char *field);

#endif
