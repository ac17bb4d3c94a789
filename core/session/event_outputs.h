/*
 * A session's outputs that come from its recording rather than from its
 * totals: Parquet event logs (written as events come), and the formats
 * rendered from the recording at the end (speedscope, trace, and pprof once
 * --span labels events: its samples carry the labels). Also what the
 * recording needs before load: its support in this kernel, the --span
 * targets, the BPF parts to select and size.
 */
#ifndef STK_EVENT_OUTPUTS_H
#define STK_EVENT_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/options/stack_opts.h"

struct stk_bpf;
struct stk_output_file;
struct stk_event_sink;
struct stk_event_outputs;
struct stk_ev_series_opts;

/* Whether o records events at all (an output that needs them, or --span). */
bool stk_wants_events(const struct stk_stack_opts *o);
/* Whether the output in format f comes from the recording (eo's: every output of a capture that always records). */
bool stk_output_from_events(const struct stk_stack_opts *o, enum stk_format f);
bool stk_event_outputs_made(const struct stk_event_outputs *eo, const struct stk_stack_opts *o, enum stk_format f);

/* Where a recording goes: the -o files, or (stk record -o DIR/) a series of files in a directory. */
struct stk_event_where {
	struct stk_output_file *const *outs; /* outs[i] is o->output_paths[i]'s file */
	const char *series_dir;              /* NULL: no series */
	const struct stk_ev_series_opts *series;
};

/*
 * The recording for o's outputs (with none, stdout in o->format; with a
 * series, the series alone), and the --span targets found in pid's files
 * (0: the system's). has_btf: the session found BTF (the BPF side finds
 * the ring buffer through it); all: every output is made from the
 * recording (stk record), not only those that need events. NULL after a
 * one-line err: this kernel cannot record, a span target does not exist,
 * the series' directory is refused or taken, out of memory.
 */
struct stk_event_outputs *stk_event_outputs_open(const struct stk_stack_opts *o, const struct stk_event_where *where,
						 bool has_btf, uint32_t pid, bool all, char *err, size_t err_len);
struct stk_event_sink *stk_event_outputs_sink(const struct stk_event_outputs *eo);
/* The span programs to load with the applet's (NULL-terminated), and whether they need libbpf's USDT maps. */
const char *const *stk_event_outputs_programs(const struct stk_event_outputs *eo);
bool stk_event_outputs_usdt(const struct stk_event_outputs *eo);
/* After load: spans attached. 0, or -1 with err. */
int stk_event_outputs_attach(struct stk_event_outputs *eo, struct stk_bpf *skel, char *err, size_t err_len);
/* Stops the spans (with the applet's own detach). */
void stk_event_outputs_detach(struct stk_event_outputs *eo);
/*
 * After the results: each event log's footer, the rendered outputs, every
 * one of them put in place; then one line on stderr with the events
 * written and lost. 0, or -1 after printing an error.
 */
int stk_event_outputs_finish(struct stk_event_outputs *eo, const char *applet, const struct stk_stack_opts *o,
			     struct stk_output_file *const *outs);
void stk_event_outputs_free(struct stk_event_outputs *eo);

/* Whether BPF in this kernel can record events (the ring buffer and BTF to find its helper). */
bool stk_events_possible_here(bool has_btf);

#endif
