/* An event log of rows made in user space: see row_log.h. */
#include "core/session/row_log.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/safe_output.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"

struct stk_row_log {
	struct stk_output_file *files[STK_MAX_OUTPUTS];
	size_t n;
	struct stk_event_sink *sink;
};

struct stk_row_log *stk_row_log_open(const char *const *paths, size_t n, const struct stk_event_desc *kind,
				     bool per_thread, const char *host, char *err, size_t err_len)
{
	struct stk_row_log *l = calloc(1, sizeof(*l));
	const struct stk_event_source src = { .per_thread = per_thread, .kinds = kind, .n_kinds = 1 };
	FILE *streams[STK_MAX_OUTPUTS];

	if (!l || n > STK_MAX_OUTPUTS) {
		snprintf(err, err_len, l ? "at most %d event logs" : "out of memory", STK_MAX_OUTPUTS);
		free(l);
		return NULL;
	}
	for (; l->n < n; l->n++) {
		if (!(l->files[l->n] = stk_safe_output_open(paths[l->n], err, err_len)))
			goto fail;
		streams[l->n] = stk_safe_output_stream(l->files[l->n]);
	}
	if (!(l->sink = stk_event_sink_new(streams, n, NULL, 0, err, err_len)) ||
	    stk_event_sink_describe_events(l->sink, &src, err, err_len))
		goto fail;
	if (host)
		stk_event_sink_set_host(l->sink, host);
	return l;
fail:
	stk_row_log_free(l);
	return NULL;
}

void stk_row_log_add(struct stk_row_log *l, struct stk_ev_row *row)
{
	stk_event_sink_add_row(l->sink, 0, row);
}

int stk_row_log_finish(struct stk_row_log *l, const char *applet, const char *command, const struct stk_report *r,
		       char *err, size_t err_len)
{
	const struct stk_output_opts opts = { .show_tid = true };

	stk_event_sink_describe(l->sink, applet, command, r, &opts);
	if (stk_event_sink_close(l->sink, err, err_len))
		return -1;
	for (size_t i = 0; i < l->n; i++)
		if (stk_safe_output_commit(l->files[i], err, err_len))
			return -1;
	fprintf(stderr, "%s: %" PRIu64 " events recorded, none lost\n", applet, stk_event_sink_rows(l->sink));
	return 0;
}

void stk_row_log_free(struct stk_row_log *l)
{
	if (!l)
		return;
	stk_event_sink_free(l->sink);
	for (size_t i = 0; i < l->n; i++)
		stk_safe_output_close(l->files[i]);
	free(l);
}
