/*
 * The kernel tables' state, shared by their two files (and by nothing
 * else): file_tables.c keeps each file's table in the maps (its part of the
 * file's entry: built here or on the builder's thread, placed in rows and
 * pages, evicted when unused and room is short); unwind_tables.c keeps each
 * process's mappings in the maps (its part of the process's entry: loads,
 * reloads on a budget, forgetting) and the lifecycle.
 */
#ifndef STK_UNWIND_TABLES_STATE_H
#define STK_UNWIND_TABLES_STATE_H

#include "core/unwind/range_alloc.h"
#include "core/unwind/unwind_tables.h"

enum file_state {
	FILE_NEW,      /* no table yet (or evicted): built when a process maps it */
	FILE_BUILDING, /* with the builder */
	FILE_PLACED,   /* its rows and pages are in the maps */
	FILE_NO_CFI,   /* no table (no CFI, too large, unreadable): frame-pointer steps */
	FILE_NO_ROOM,  /* a table of want_rows rows, with no room for it when it was built */
};

/* A file's table in the maps: the tables' part of its entry (struct stk_file's table). */
struct stk_file_table {
	struct stk_file *file;
	enum file_state state;
	uint64_t base_vaddr;
	uint32_t first_row, n_rows, first_page, n_pages; /* n_pages + 1 page entries */
	size_t want_rows, want_pages;                    /* FILE_NO_ROOM: what it needs */
	unsigned refs;     /* loaded processes mapping it */
	uint64_t last_use; /* for eviction, oldest first */
};

/* A process loaded in the maps: the tables' part of its entry (struct stk_process's tables). */
struct stk_proc_tables {
	struct stk_process *proc;
	size_t at;                 /* in the tables' list of loaded processes */
	uint32_t first_map, n_maps;
	unsigned reload_tokens;    /* reloads it may make now (a process remapping code all the time waits) */
	int64_t tokens_at;         /* when the last token was added */
	struct stk_mapping *loaded; /* the n_maps mappings written: an identical list needs no new load */
	bool partial;
};

struct stk_unwind_tables {
	const struct stk_unwind_maps_ops *ops;
	void *ctx;
	struct stk_unwind_capacity cap;
	struct stk_cfi_table_limits lim;
	stk_unwind_submit_fn submit; /* NULL: tables are built where a load needs them */
	void *submit_ctx;
	struct stk_range_alloc rows, pages, mappings;
	struct stk_file_table **files; /* every file given a part: eviction looks among them */
	size_t n_files, cap_files;
	struct stk_proc_tables **procs; /* every process loaded */
	size_t n_procs, cap_procs;
	uint64_t clock;
	uint32_t gen; /* the last process entry's generation (stk_unwind_proc.gen) */
	struct stk_unwind_tables_stats stats;
};

/* file_tables.c */
/*
 * The table of m's file (m->file with a kept ELF), its part made on first
 * sight, the table built (or queued) unless it has one; NULL when out of
 * memory.
 */
struct stk_file_table *stk_file_table_for(struct stk_unwind_tables *t, const struct stk_mapping *m);
/* Whether f's mappings wait for rows (its table coming, or without room): their frames take the copy path. */
bool stk_file_table_pending(const struct stk_file_table *f);
/* The kernel's view of mapping m, whose file's table is f (NULL: none): the one place the BPF map's value is made. */
struct stk_unwind_mapping stk_file_table_mapping(const struct stk_mapping *m, const struct stk_file_table *f);
/* Every file's part taken back from its entry and freed. */
void stk_file_tables_release(struct stk_unwind_tables *t);

#endif
