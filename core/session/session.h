/*
 * The applet session: what every stack applet owns between its options and
 * its results, opened and released in one place. In order:
 *   stk_session_open     privileges, libbpf's verbosity, the BTF source
 *                        (--btf, sysfs, libbpf's paths, embedded), the -o
 *                        files, the symbolizer (with -p processes learned now)
 *   (the applet opens, sizes, loads and attaches its BPF programs through
 *    core/attach, using stk_session_btf_path() for CO-RE)
 *   stk_session_start    the run loop and new-process announcements; the clock
 *   stk_session_wait     until the duration, an interval, Ctrl-C or SIGTERM
 *   (the applet detaches: counting stops before anything is read)
 *   stk_session_stopped  drains announcements, reports losses
 *   stk_session_begin_results, then the applet reads its maps into a list
 *   stk_session_print    writes one report to stdout or every -o file
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
#include "core/session/stack_list.h"
#include "core/options/stack_opts.h"
#include "core/unwind/unwind_plan.h"

/* How long symbolizing after a capture may take before the rest prints as addresses. */
#define STK_SYMBOLIZE_DEADLINE_MS 30000
/*
 * How long samples still queued are unwound once SIGINT/SIGTERM ended the
 * capture (the rest keep their leaf frame): results come within a second.
 */
#define STK_UNWIND_AFTER_SIGNAL_MS 300

struct bpf_map;
struct stk_output_file;
struct stk_symbolizer;
struct stk_process_watch;
struct stk_dwarf_samples;
struct stk_kernel_unwind;
struct stk_bpf;
struct stk_event_outputs;
struct stk_event_source;
struct stk_event;

/* How the loss counters of one applet read (bpf/stack_stats.h slots of stats). */
struct stk_loss_sizes {
	const struct bpf_map *stats; /* PERCPU_ARRAY of STK_STAT_COUNT u64 */
	unsigned counts_size;        /* unique keys the count map holds */
	const char *unit;            /* what a lost count was: "samples", "blocks", "events" */
};
/*
 * A stack applet's capture, start to results: the text header (when text goes
 * to stdout), waiting (each -i tick: drain, then interval), detaching before
 * anything is read, stk_session_stopped, then results. 0, or 1 when the
 * results could not be written.
 */
struct stk_stack_capture {
	void (*header)(void *run);
	int (*interval)(void *run); /* NULL: no intervals; else 0 or -1 */
	void (*detach)(void *run);
	int (*results)(void *run);  /* 0 or -1 */
	struct stk_loss_sizes losses;
};
struct stk_session {
	const char *applet;
	const struct stk_stack_opts *opts; /* the applet's shared stack options */
	struct stk_btf_source btf;
	int empty_btf_fd; /* kernels without BTF: see stk_bpf_empty_btf() */
	char empty_btf_path[64];
	struct stk_symbolizer *sym;
	struct stk_run_loop *loop;
	struct stk_process_watch *processes;
	struct stk_unwind_plan unwind;    /* how user stacks are taken (stk_session_plan_unwind) */
	struct stk_dwarf_samples *dwarf;  /* stack copies unwound in user space (stk_session_dwarf) */
	struct stk_kernel_unwind *kunwind; /* the cfi rung's tables (stk_session_kernel_unwind) */
	int sweep_fd; /* a 1 s timer: processes that exited are compacted (stk_symbolizer_sweep) */
	uint64_t dwarf_missing_reported;
	struct stk_output_file *outs[STK_MAX_OUTPUTS];
	int64_t start_wall, start_mono; /* what the next report covers */
	int64_t entered_mono;           /* -v: time from start to tracing */
	int64_t resolve_start;          /* -v: time spent reading and printing */
	struct stk_stack_capture capture; /* stack applets: what setup says about the capture */
	/* The event log (core/session/event_outputs.h): NULL when no output needs events. */
	struct stk_event_outputs *events;
	bool events_possible; /* BPF here can record: the event log's maps are always selected */
	const char *extra_maps[64], *extra_programs[64]; /* stk_session_extra_maps/_programs */
};

/*
 * Opens the session for APPLET with its parsed options; pids (may differ from
 * opts->pids, e.g. stackcount's single -p) are learned by the symbolizer now.
 * 0, or -1 after printing a one-line error; stk_session_close() either way.
 */
int stk_session_open(struct stk_session *s, const char *applet, const struct stk_stack_opts *opts,
		     const uint32_t *pids, size_t n_pids);
/*
 * Only the BPF part of stk_session_open (privileges, libbpf's verbosity, the
 * BTF source): for applets without stack options (threadstate).
 */
int stk_session_open_bpf(struct stk_session *s, const char *applet, int verbose, const char *btf_file);
/* The BTF file libbpf should use for CO-RE (NULL: its own default), an empty
 * one on kernels that have none, so that programs without CO-RE still load. */
const char *stk_session_btf_path(struct stk_session *s);
/*
 * How user stacks are taken in this run (core/unwind/unwind_plan.h), into
 * s->unwind: the rung o's --unwind asked for, or the first this kernel
 * offers from top down (-v says which were passed over and why). hashes:
 * the applet hashes stack copies in the kernel. 0, or -1 after an error
 * (the rung asked for cannot work).
 */
int stk_session_plan_unwind(struct stk_session *s, const struct stk_stack_opts *o, bool hashes,
			    enum stk_unwind_rung top);
/*
 * The cfi rung, after load: the kernel unwinder's tables over skel's maps,
 * filled from here on (-p processes now, others as they are announced).
 * 0, or -1 after printing an error.
 */
int stk_session_kernel_unwind(struct stk_session *s, struct stk_bpf *skel);
/*
 * The shared BPF parts to select beside the applet's programs and maps
 * (NULL-terminated, owned by s; after stk_session_plan_unwind): the kernel
 * unwinder's (cfi rung), the event log's maps (wherever BPF can record: the
 * programs read their events flag at run time) and the --span programs.
 */
const char *const *stk_session_extra_maps(struct stk_session *s);
const char *const *stk_session_extra_programs(struct stk_session *s);
/* Before load: the event log's maps sized (one page when no event is recorded). 0, or -1 (errno). */
int stk_session_size_event_maps(struct stk_session *s, struct stk_bpf *skel);
/* The events field of the applet's BPF configuration (STK_EVENTS_*): 0 when nothing is recorded. */
uint32_t stk_session_event_flags(const struct stk_session *s);
/*
 * After load (and after stk_session_dwarf): events read from skel's ring
 * buffer with the applet's stacks (src), spans attached. Again for a new
 * skeleton replaces the reader. 0, or -1 after printing an error.
 */
int stk_session_events(struct stk_session *s, struct stk_bpf *skel, const struct stk_event_source *src);
/* An event made in user space (offcputime: a block still going at the end); nothing without a recording. */
void stk_session_event_add(struct stk_session *s, const struct stk_event *e);

/* The cfi rung, before load: the kernel unwinder's maps sized. 0, or -1 (errno). */
int stk_session_size_unwind_maps(struct stk_session *s, struct stk_bpf *skel);
/* Frames a user chain keeps: --perf-max-stack-depth, at most what a chain holds. */
uint32_t stk_unwind_chain_depth(uint64_t max_depth);
/* Where count keys' stacks are read from (stack_map_fd: the applet's STACK_TRACE map). */
struct stk_stack_source stk_session_stack_source(const struct stk_session *s, int stack_map_fd);
/* Whether CO-RE relocations can be resolved (some BTF for this kernel exists). */
bool stk_session_has_btf(const struct stk_session *s);
/*
 * --unwind dwarf: reads the applet's sample map (bpf/stack_sample.h records)
 * into core/session/dwarf_samples.c; by_hash for applets that count in the
 * kernel under each sample's content hash (offcputime, stackcount). Call once
 * the map exists and before attaching, so no event's sample is missed; again
 * for a new skeleton (a mechanism retried) replaces the reader. 0, or -1
 * after printing an error.
 */
int stk_session_dwarf(struct stk_session *s, const struct bpf_map *samples, bool by_hash);
/*
 * Starts waiting (interval_ms 0: none) and reading new-process announcements
 * from the BPF map new_process (NULL: none). 0, or -1 after printing an error.
 */
int stk_session_start(struct stk_session *s, const struct bpf_map *new_process, long interval_ms);
enum stk_run_event stk_session_wait(struct stk_session *s);
/* Announcements still buffered; call after detaching and before reading maps. */
void stk_session_drain(struct stk_session *s);

/* After the BPF side stopped: drain, the wait's error if any, losses, -v stats. */
void stk_session_stopped(struct stk_session *s, enum stk_run_event ev, const struct stk_loss_sizes *losses);

/*
 * Writes report (its stacks from list) to stdout in opts->format, or to every
 * -o file in its own format; fills the report's time and duration from the
 * session clock when unset, and restarts that clock (stackcount -i).
 * 0, or -1 after an error.
 */
int stk_session_print(struct stk_session *s, const struct stk_stack_list *list, struct stk_report *report,
		      struct stk_output_opts *opts);
/* Before reading stacks: a warning when kernel frames will be [unknown]; -v times from here. */
void stk_session_begin_results(struct stk_session *s);

int stk_session_capture(struct stk_session *s, const struct stk_stack_capture *c, void *run);

void stk_session_close(struct stk_session *s);

#endif
