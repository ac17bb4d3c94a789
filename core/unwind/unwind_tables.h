/*
 * The kernel unwinder's tables as user space keeps them: one CFI table per
 * executable file (core/unwind/cfi_table.c), built once when a process
 * mapping it is first loaded and shared by every process mapping it; per
 * process, its executable mappings pointing at those tables. The files and
 * processes are the process table's and the file cache's entries
 * (core/unwind/mapping.h): a file's placement in the maps is kept in its
 * entry (struct stk_file's table), a process's mapping slots in its entry
 * (struct stk_process's tables), so nothing here is found by a search.
 * Everything is written into the BPF maps through struct
 * stk_unwind_maps_ops (libbpf in core/bpf/unwind_maps.c, a fake in the unit
 * tests), in an order that never lets the walk see a half-written process:
 * rows and mappings first, the process entry that points at them last. A
 * file's table is built where a load needs it, or, given a builder
 * (stk_unwind_tables_set_builder), on the builder's thread: the load then
 * writes the process with that file's mappings table-less (the walk hands
 * their frames to the copy path) and stk_unwind_tables_built places the
 * table when it comes; the processes waiting for it are loaded again
 * (stk_unwind_tables_each_user). One tables object per process table at a
 * time: it keeps its part in their entries.
 */
#ifndef STK_UNWIND_TABLES_H
#define STK_UNWIND_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_types.h"
#include "core/unwind/cfi_table.h"
#include "core/unwind/mapping.h"

/* How the tables reach the kernel. Each returns 0, or -1 (errno set). */
struct stk_unwind_maps_ops {
	int (*write_rows)(void *ctx, uint32_t first, const struct stk_cfi_row *rows, size_t n);
	int (*write_pages)(void *ctx, uint32_t first, const uint32_t *pages, size_t n);
	int (*write_mappings)(void *ctx, uint32_t first, const struct stk_unwind_mapping *m, size_t n);
	int (*write_proc)(void *ctx, uint32_t tgid, const struct stk_unwind_proc *p);
	int (*delete_proc)(void *ctx, uint32_t tgid);
};

/* Slots of each map (what the maps were created with). */
struct stk_unwind_capacity {
	uint32_t rows, pages, mappings, procs;
};

/* One file's table as it was built (-v lists them). */
struct stk_unwind_built {
	char name[96];
	size_t rows, pages;
	int64_t build_ns;
};
#define STK_UNWIND_BUILT_KEPT 32

struct stk_unwind_tables_stats {
	unsigned files_built, files_failed, files_no_room, files_evicted, files_queued;
	unsigned files_let_go; /* given back for the file cache to free the file (stk_unwind_tables_let_go) */
	unsigned procs_loaded, procs_partial, procs_failed, reloads;
	int64_t build_ns;          /* CPU time building tables */
	uint64_t rows_used, rows_peak, rows_cap;
	uint64_t pages_used, pages_cap, mappings_used, mappings_cap;
	size_t biggest_rows;       /* rows of the largest table */
	char biggest[96];          /* its file */
	char last_failure[192];    /* "" when no file failed */
	struct stk_unwind_built built[STK_UNWIND_BUILT_KEPT]; /* the largest tables built */
	size_t n_built;
};

struct stk_unwind_tables;

/* NULL when out of memory. ops and ctx must outlive the tables. */
struct stk_unwind_tables *stk_unwind_tables_new(const struct stk_unwind_maps_ops *ops, void *ctx,
						const struct stk_unwind_capacity *cap,
						const struct stk_cfi_table_limits *lim);
/* Takes its part back from every file and process it loaded: free it before their tables. */
void stk_unwind_tables_free(struct stk_unwind_tables *t);
/* The limits every build from here on keeps (its stop callback, say). */
void stk_unwind_tables_set_limits(struct stk_unwind_tables *t, const struct stk_cfi_table_limits *lim);

/*
 * Tables from here on are asked of submit (file: its fd or image to read;
 * name: for -v; 0: queued, -1: refused), and come back through
 * stk_unwind_tables_built. With a builder the loop scans no CFI guard: a
 * file the builder refuses gets no table (frame-pointer steps).
 */
typedef int (*stk_unwind_submit_fn)(void *ctx, struct stk_file *file, const char *name);
void stk_unwind_tables_set_builder(struct stk_unwind_tables *t, stk_unwind_submit_fn submit, void *ctx);
/*
 * A submitted file's table, built (tab: its rows, still the caller's to
 * free) or not (tab NULL, why); build_ns: the CPU time it took. Placed when
 * there is room.
 */
void stk_unwind_tables_built(struct stk_unwind_tables *t, struct stk_file *file, const char *name,
			     const struct stk_cfi_table *tab, const char *why, int64_t build_ns);
/* Calls fn for each loaded process mapping file (to load it again once file's table is placed). */
void stk_unwind_tables_each_user(const struct stk_unwind_tables *t, const struct stk_file *file,
				 void (*fn)(void *ctx, uint32_t tgid), void *ctx);

/* What a load did. */
enum stk_unwind_load_result {
	STK_UNWIND_LOADED,     /* written (or already so: nothing changed) */
	STK_UNWIND_PARTIAL,    /* written, but some mappings have no table yet or no room: their frames take the copy path */
	STK_UNWIND_LATER,      /* refused for now: the process reloads too often (try again later) */
	STK_UNWIND_LOAD_FAILED,
};
/*
 * Loads (or reloads, after an exec or a new mapping) process p with its
 * executable mappings as they are now (the special ones and those gone
 * aside): tables are built for files not seen before. A process may reload
 * STK_UNWIND_RELOAD_BURST times at once, then once per
 * STK_UNWIND_RELOAD_EVERY_NS (now_ns: CLOCK_MONOTONIC); a reload with the
 * same mappings (tables that came since) is free.
 */
#define STK_UNWIND_RELOAD_BURST 16
#define STK_UNWIND_RELOAD_EVERY_NS 50000000LL
enum stk_unwind_load_result stk_unwind_tables_load(struct stk_unwind_tables *t, struct stk_process *p,
						   int64_t now_ns);
/* The process is gone (or exec'd): its entry in the maps and its mapping slots are released. */
void stk_unwind_tables_forget(struct stk_unwind_tables *t, struct stk_process *p);
/*
 * file's part given back (its rows and pages freed, its entry's table
 * NULL) before the file cache frees the file; false while a loaded process
 * maps it or its table is with the builder (the file must stay).
 */
bool stk_unwind_tables_let_go(struct stk_unwind_tables *t, struct stk_file *file);
/* Whether p is loaded. */
bool stk_unwind_tables_has(const struct stk_unwind_tables *t, const struct stk_process *p);
void stk_unwind_tables_get_stats(const struct stk_unwind_tables *t, struct stk_unwind_tables_stats *st);

#endif
