/*
 * An event log whose rows user space makes by itself, no BPF ring buffer
 * behind it (threadstate -o FILE.parquet: a row per thread per pass): its
 * Parquet files opened as every -o file is (written to a new file, put in
 * place whole at the end), the rows through the event sink, the footer
 * describing one kind of event.
 */
#ifndef STK_ROW_LOG_H
#define STK_ROW_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/session/event_sink.h"

struct stk_ev_row;
struct stk_row_log;

/*
 * The files at paths[0..n) for rows of kind (its strings must outlive the
 * log); per_thread: the totals keep threads apart; host: the host column
 * (a name stk_ev_host_invalid accepted; copied), NULL for this host's name.
 * NULL with err.
 */
struct stk_row_log *stk_row_log_open(const char *const *paths, size_t n, const struct stk_event_desc *kind,
				     bool per_thread, const char *host, char *err, size_t err_len);
/* A row; its event and unit are the kind's. */
void stk_row_log_add(struct stk_row_log *l, struct stk_ev_row *row);
/*
 * The footers (the capture's command line and the report a capture would
 * print), every file put in place; then stderr says how many rows. 0, or
 * -1 with err.
 */
int stk_row_log_finish(struct stk_row_log *l, const char *applet, const char *command, const struct stk_report *r,
		       char *err, size_t err_len);
void stk_row_log_free(struct stk_row_log *l);

#endif
