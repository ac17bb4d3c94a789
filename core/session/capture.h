/*
 * Plumbing every stack applet shares after its BPF side has run: per-CPU
 * counter sums, the list of collected stacks, the common loss warnings, the
 * symbolizer summary, and writing one report to every requested output.
 */
#ifndef STK_CAPTURE_H
#define STK_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/output/output.h"
#include "core/stack/stack.h"
#include "core/stack/stack_opts.h"

struct bpf_map;
struct stk_symbolizer;
struct stk_btf_source;

/*
 * The start of every capture: privileges (exit-2 message when missing),
 * libbpf's verbosity, and the BTF source (--btf FILE must be readable).
 * 0, or -1 after printing a one-line error. The caller releases *btf with
 * stk_btf_source_release() (an embedded BTF holds a memfd).
 */
int stk_capture_prepare(const char *applet, int verbose, const char *btf_file, struct stk_btf_source *btf);
/* Opens each -o path for writing. 0, or -1 after printing which one failed. */
int stk_open_outputs(const char *applet, const char *const *paths, size_t n, FILE **files);
/* A symbolizer that already knows the given processes (so even a quick exit resolves). */
struct stk_symbolizer *stk_symbolizer_for(const char *applet, const struct stk_stack_opts *o, const uint32_t *pids,
					  size_t n_pids);

/* fn's view of one key of a per-CPU count map; non-zero ends the walk. */
typedef int (*stk_percpu_count_fn)(void *ctx, const void *key, uint64_t total);
/*
 * Every key of a BPF_MAP_TYPE_PERCPU_HASH of u64 counts with its sum over
 * CPUs (keys that sum to 0 are skipped). 0, fn's first non-zero return, or -1
 * when out of memory.
 */
int stk_percpu_counts_each(int map_fd, size_t key_size, stk_percpu_count_fn fn, void *ctx);
/* Sum over CPUs of slot in a BPF_MAP_TYPE_PERCPU_ARRAY of u64 (0 when unreadable). */
uint64_t stk_percpu_sum(const struct bpf_map *map, uint32_t slot);
int64_t stk_now_ns(clockid_t clock);

/* Stacks collected from the maps; each owns its kernel and user frame arrays. */
struct stk_stack_list {
	struct stk_stack *stacks;
	size_t n, cap;
};
/* A zeroed new entry, or NULL when out of memory. */
struct stk_stack *stk_stack_list_add(struct stk_stack_list *l);
void stk_stack_list_free(struct stk_stack_list *l);

/* One counted key of a stack applet's count map. */
struct stk_counted_key {
	uint32_t tgid, tid;
	const char *comm;         /* up to 16 bytes, NUL-terminated or not */
	int32_t kernel_stack_id, user_stack_id;
	uint64_t value;
};
/*
 * A new entry for key: comm, value, and its kernel and user stacks read from
 * the stack map and symbolized (only the kind -U/-K leave; no user stack for
 * the idle task). NULL when out of memory.
 */
struct stk_stack *stk_stack_list_add_key(struct stk_stack_list *l, const struct stk_counted_key *key,
					 int stack_map_fd, struct stk_symbolizer *sym, uint32_t max_depth,
					 bool user_only, bool kernel_only);

/* Data the kernel side could not keep, reported with the option to raise. */
struct stk_losses {
	uint64_t collisions;        /* stack map hash collisions (-EEXIST) */
	uint64_t stack_map_full;    /* -ENOMEM */
	uint64_t counts_full;       /* no room for a new key in the count map */
	uint64_t new_process_lost;  /* new-process notifications dropped */
	uint64_t stack_storage_size;
	unsigned counts_size;
	const char *unit;           /* what counts_full counts: "samples", "blocks", "events" */
};
void stk_report_losses(const struct stk_losses *l);
/* "APPLET: symbolizer: N processes (...), N files parsed, N failed" on stderr. */
void stk_print_symbolizer_stats(const char *applet, const struct stk_symbolizer *sym);

/*
 * Writes report to each files[i] in formats[i] (paths[i] names it in errors),
 * or to stdout in opts->format when n is 0. 0, or -1 after reporting a failure.
 */
int stk_write_outputs(const char *applet, FILE *const *files, const char *const *paths,
		      const enum stk_format *formats, size_t n, const struct stk_report *report,
		      const struct stk_output_opts *opts);

#endif
