/*
 * The applet session: what every stack applet owns between its options and
 * its results, opened and released in one place. An applet declares what it
 * is once (struct stk_stack_applet); the session runs it:
 *   stk_session_open     privileges, libbpf's verbosity, the BTF source
 *                        (--btf, sysfs, libbpf's paths, embedded), the -o
 *                        files, --cgroup's directory, the symbolizer (with
 *                        -p processes learned now)
 *   (the applet opens its programs with stk_session_extra_maps/_programs
 *    beside its own, through core/attach; before load stk_session_size_maps,
 *    after load stk_session_connect and its configuration, headed by
 *    stk_session_stack_config)
 *   stk_session_start    the run loop and new-process announcements; the clock
 *   stk_session_capture  waits (until the duration, an interval, Ctrl-C or
 *                        SIGTERM), has the applet detach, reports losses,
 *                        and has the applet print its results
 *                        (stk_session_collect, stk_session_print)
 *   stk_session_close    releases everything, whatever was opened
 */
#ifndef STK_SESSION_H
#define STK_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/run_loop.h"
#include "core/btf/btf_source.h"
#include "core/output/output.h"
#include "core/session/event_sink.h"
#include "core/session/stack_list.h"
#include "core/session/stack_resolver.h"
#include "core/options/stack_opts.h"
#include "core/unwind/unwind_plan.h"

/* How long symbolizing after a capture may take before the rest prints as addresses. */
#define STK_SYMBOLIZE_DEADLINE_MS 30000
/*
 * How long samples still queued are unwound once SIGINT/SIGTERM ended the
 * capture (the rest keep their leaf frame): results come within a second.
 */
#define STK_UNWIND_AFTER_SIGNAL_MS 300

struct stk_output_file;
struct stk_symbolizer;
struct stk_process_watch;
struct stk_dwarf_samples;
struct stk_kernel_unwind;
struct stk_bpf;
struct stk_event_outputs;
struct stk_event;

/* Stack references stk_counts holds. */
#define STK_COUNTS_SIZE 40960

/*
 * A stack applet, declared once in its cmd/ file (data, and the steps of
 * its capture that are its own). The session keeps a copy; pointers in it
 * must outlive the session.
 */
struct stk_stack_applet {
	const char *name;
	bool counts;            /* counts stacks through bpf/stack_maps.h (pmp does not) */
	const char *unit;       /* what one count is, in loss warnings: "samples", "blocks", "events" */
	bool hashes;            /* stack copies are hashed in the kernel and sent once per content */
	bool counts_itself;     /* stk's own threads count too (profile samples them as bcc's does) */
	bool records;           /* every output, text too, is made from its recording, which it always makes (stk record) */
	struct stk_stack_rules rules;  /* how its stacks are shown */
	struct stk_event_source events; /* what its events are (when it records) */
	/* stk record -o DIR/: its recording a series of files in series_dir (NULL: none; no other -o then) */
	const char *series_dir;
	const struct stk_ev_series_opts *series;
	/* The capture: the text header (when text goes to stdout); each -i tick
	 * (NULL: no intervals; else 0 or -1); detaching before anything is read;
	 * the results (0 or -1). */
	void (*header)(void *run);
	int (*interval)(void *run);
	void (*detach)(void *run);
	int (*results)(void *run);
};

struct stk_session {
	const char *applet;
	struct stk_stack_applet app;
	const struct stk_stack_opts *opts; /* the applet's shared stack options */
	struct stk_btf_source btf;
	int empty_btf_fd; /* kernels without BTF: see stk_bpf_empty_btf() */
	char empty_btf_path[64];
	struct stk_symbolizer *sym;
	struct stk_run_loop *loop;
	struct stk_process_watch *processes;
	struct stk_unwind_plan unwind;    /* how user stacks are taken (stk_session_plan_unwind) */
	struct stk_dwarf_samples *dwarf;  /* stack copies unwound in user space (stk_session_connect) */
	struct stk_kernel_unwind *kunwind; /* the cfi rung's tables (stk_session_connect) */
	struct stk_stack_resolver resolver; /* the stack references' one resolver, for totals and events */
	struct stk_bpf *skel;             /* the applet's loaded object (stk_session_connect; not owned) */
	int sweep_fd; /* a 1 s timer: processes that exited are compacted (stk_symbolizer_sweep) */
	int cgroup_fd; /* --cgroup's directory (-1: none) */
	uint64_t dwarf_missing_reported;
	struct stk_output_file *outs[STK_MAX_OUTPUTS];
	int64_t start_wall, start_mono; /* what the next report covers */
	int64_t entered_mono;           /* -v: time from start to tracing */
	int64_t resolve_start;          /* -v: time spent reading and printing */
	/* The event log (core/session/event_outputs.h): NULL when no output needs events. */
	struct stk_event_outputs *events;
	bool events_possible; /* BPF here can record: the event log's maps are always selected */
	const char *extra_maps[64], *extra_programs[64]; /* stk_session_extra_maps/_programs */
};

/*
 * Opens the session for the applet app describes (copied) with its parsed
 * options; pids (may differ from opts->pids, e.g. stackcount's single -p)
 * are learned by the symbolizer now. 0, or -1 after printing a one-line
 * error; stk_session_close() either way.
 */
int stk_session_open(struct stk_session *s, const struct stk_stack_applet *app, const struct stk_stack_opts *opts,
		     const uint32_t *pids, size_t n_pids);
/*
 * Only the BPF part of stk_session_open (privileges, libbpf's verbosity, the
 * BTF source): for applets without stack options (threadstate).
 */
int stk_session_open_bpf(struct stk_session *s, const char *applet, int verbose, const char *btf_file);
/* The BTF file libbpf should use for CO-RE (NULL: its own default), an empty
 * one on kernels that have none, so that programs without CO-RE still load. */
const char *stk_session_btf_path(struct stk_session *s);
/* Whether CO-RE relocations can be resolved (some BTF for this kernel exists). */
bool stk_session_has_btf(const struct stk_session *s);
/*
 * How user stacks are taken in this run (core/unwind/unwind_plan.h), into
 * s->unwind: the rung o's --unwind asked for, or the first this kernel
 * offers from top down, at most top (-v says which were passed over and
 * why). hashes: the applet hashes stack copies in the kernel. 0, or -1
 * after an error (the rung asked for cannot work).
 */
int stk_session_plan_unwind(struct stk_session *s, const struct stk_stack_opts *o, bool hashes,
			    enum stk_unwind_rung top);
/*
 * The shared BPF parts to select beside the applet's programs and maps
 * (NULL-terminated, owned by s; after stk_session_plan_unwind): the stack
 * maps (bpf/stack_maps.h) the rung uses, the kernel unwinder's (cfi rung),
 * the event log's maps (wherever BPF can record: the programs read their
 * events flag at run time) and the --span programs.
 */
const char *const *stk_session_extra_maps(struct stk_session *s);
const char *const *stk_session_extra_programs(struct stk_session *s);
/* Before load: the shared maps sized from the options. 0, or -1 (errno). */
int stk_session_size_maps(struct stk_session *s, struct stk_bpf *skel);
/*
 * After load (again for a new skeleton: a mechanism retried): the -p and -t
 * filters filled, the stack copies' reader (dwarf and cfi rungs), the kernel
 * unwinder's tables (cfi), the event log connected, the resolver pointed at
 * skel's stack map. Before attaching, so no event is missed. 0, or -1 after
 * printing an error.
 */
int stk_session_connect(struct stk_session *s, struct stk_bpf *skel);
/* The head of the applet's BPF configuration (bpf/stack_types.h), from the options. */
struct stk_stack_config stk_session_stack_config(const struct stk_session *s);
/* Frames a user chain keeps: --perf-max-stack-depth, at most what a chain holds. */
uint32_t stk_unwind_chain_depth(uint64_t max_depth);
/* -v: "APPLET: WHAT (passed over: TRIED); BTF KIND; unwind RUNG" (tried may be NULL). */
void stk_session_say_mechanism(const struct stk_session *s, const char *what, const char *tried);
/* An event made in user space (offcputime: a block still going at the end); nothing without a recording. */
void stk_session_event_add(struct stk_session *s, const struct stk_event *e);
/* A row made in user space without a stack, of ref.type type (stk record's thread states). */
struct stk_ev_row;
void stk_session_event_row(struct stk_session *s, uint16_t type, struct stk_ev_row *row);

/*
 * Starts waiting (interval_ms 0: none) and, for stack applets (after
 * stk_session_connect), reading new-process announcements. 0, or -1 after
 * printing an error.
 */
int stk_session_start(struct stk_session *s, long interval_ms);
enum stk_run_event stk_session_wait(struct stk_session *s);
/* Announcements still buffered; call after detaching and before reading maps. */
void stk_session_drain(struct stk_session *s);
/*
 * A stack applet's capture, start to results, with the steps of s->app over
 * run: 0, or 1 when the results could not be written.
 */
int stk_session_capture(struct stk_session *s, void *run);

/* Before reading stacks: a warning when kernel frames will be [unknown]; -v times from here. */
void stk_session_begin_results(struct stk_session *s);
/*
 * The totals so far (the copies user space counted, then stk_counts;
 * reset: stk_counts emptied after, for -i) resolved into l as the applet
 * shows them. 0, or -1 after printing an error.
 */
int stk_session_collect(struct stk_session *s, struct stk_stack_list *l, bool reset);
/*
 * Writes report (its stacks from list) to stdout in the options' format, or
 * to every -o file in its own format; the report's time and duration from
 * the session clock when unset, which restarts (stackcount -i). 0, or -1
 * after an error.
 */
int stk_session_print(struct stk_session *s, const struct stk_stack_list *list, const struct stk_report *report,
		      const struct stk_output_opts *opts);
/*
 * What the recording's footers say of the capture (the report's fields and
 * options, as stk_session_print completes them), before its first file is
 * described: a series' files are described as they go (stk record -o DIR/).
 */
void stk_session_describe(struct stk_session *s, const struct stk_report *report, const struct stk_output_opts *opts);
/* stk_session_collect and stk_session_print, for applets with nothing of their own to add. */
int stk_session_results(struct stk_session *s, const struct stk_report *report, const struct stk_output_opts *opts);

void stk_session_close(struct stk_session *s);

#endif
