/* Files' CFI tables and processes' mappings, placed in the kernel's maps: see unwind_tables.h. */
#include "core/unwind/unwind_tables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/unwind/range_alloc.h"


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
	struct stk_unwind_tables_stats stats;
};

struct stk_unwind_tables *stk_unwind_tables_new(const struct stk_unwind_maps_ops *ops, void *ctx,
						const struct stk_unwind_capacity *cap,
						const struct stk_cfi_table_limits *lim)
{
	struct stk_unwind_tables *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ops = ops;
	t->ctx = ctx;
	t->cap = *cap;
	t->lim = *lim;
	if (stk_range_alloc_init(&t->rows, cap->rows) || stk_range_alloc_init(&t->pages, cap->pages) ||
	    stk_range_alloc_init(&t->mappings, cap->mappings)) {
		stk_unwind_tables_free(t);
		return NULL;
	}
	return t;
}

void stk_unwind_tables_set_limits(struct stk_unwind_tables *t, const struct stk_cfi_table_limits *lim)
{
	t->lim = *lim;
}

void stk_unwind_tables_set_builder(struct stk_unwind_tables *t, stk_unwind_submit_fn submit, void *ctx)
{
	t->submit = submit;
	t->submit_ctx = ctx;
}

/* Whether a mapping goes into the kernel's list: what the walk can meet now. */
static bool walkable(const struct stk_mapping *m)
{
	return m->kind != STK_MAPPING_SPECIAL && !m->gone;
}

/* Whether a mapping's file can have a table (a file the unwinders keep). */
static bool has_table(const struct stk_mapping *m)
{
	return m->file && m->file->elf;
}

/* The references of a load's mappings on their files' tables given back. */
static void unref(const struct stk_mapping *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (has_table(&maps[i]))
			maps[i].file->table->refs--;
}

/* Whether pt was loaded from exactly these mappings. */
static bool same_maps(const struct stk_proc_tables *pt, const struct stk_mapping *maps, size_t n)
{
	if (pt->n_maps != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (pt->loaded[i].start != maps[i].start || pt->loaded[i].end != maps[i].end ||
		    pt->loaded[i].offset != maps[i].offset || pt->loaded[i].file != maps[i].file)
			return false;
	return true;
}

/* pt's part taken back from its process and freed (its slots in the maps are the caller's to give). */
static void drop_proc(struct stk_unwind_tables *t, struct stk_proc_tables *pt)
{
	unref(pt->loaded, pt->n_maps);
	free(pt->loaded);
	t->procs[pt->at] = t->procs[--t->n_procs];
	t->procs[pt->at]->at = pt->at;
	pt->proc->tables = NULL;
	free(pt);
}

void stk_unwind_tables_free(struct stk_unwind_tables *t)
{
	if (!t)
		return;
	while (t->n_procs)
		drop_proc(t, t->procs[t->n_procs - 1]);
	free(t->procs);
	for (size_t i = 0; i < t->n_files; i++) {
		t->files[i]->file->table = NULL;
		free(t->files[i]);
	}
	free(t->files);
	stk_range_alloc_release(&t->rows);
	stk_range_alloc_release(&t->pages);
	stk_range_alloc_release(&t->mappings);
	free(t);
}

/* Gives an unreferenced table's slots back, oldest first. false: none left to evict. */
static bool evict_one(struct stk_unwind_tables *t)
{
	struct stk_file_table *victim = NULL;

	for (size_t i = 0; i < t->n_files; i++) {
		struct stk_file_table *f = t->files[i];

		if (f->state == FILE_PLACED && !f->refs && (!victim || f->last_use < victim->last_use))
			victim = f;
	}
	if (!victim)
		return false;
	stk_range_alloc_give(&t->rows, victim->first_row, victim->n_rows);
	stk_range_alloc_give(&t->pages, victim->first_page, victim->n_pages + 1);
	victim->state = FILE_NEW; /* rebuilt when a process maps it again */
	t->stats.files_evicted++;
	return true;
}

/* Whether a table of n_rows rows and n_pages pages could have room now (free slots, or unused tables to evict). */
static bool could_fit(const struct stk_unwind_tables *t, size_t n_rows, size_t n_pages)
{
	uint64_t rows = t->cap.rows - t->rows.used, pages = t->cap.pages - t->pages.used;

	for (size_t i = 0; i < t->n_files; i++)
		if (t->files[i]->state == FILE_PLACED && !t->files[i]->refs) {
			rows += t->files[i]->n_rows;
			pages += t->files[i]->n_pages + 1;
		}
	return rows >= n_rows && pages >= n_pages + 1;
}

/* Slots for a table of n_rows rows and n_pages pages, evicting unused tables as needed. 0, or -1. */
static int place(struct stk_unwind_tables *t, struct stk_file_table *f, size_t n_rows, size_t n_pages)
{
	int64_t r, p;

	if (n_rows > t->cap.rows || n_pages + 1 > t->cap.pages)
		return -1;
	for (;;) {
		r = stk_range_alloc_take(&t->rows, (uint32_t)n_rows);
		p = r < 0 ? -1 : stk_range_alloc_take(&t->pages, (uint32_t)n_pages + 1);
		if (p >= 0)
			break;
		if (r >= 0)
			stk_range_alloc_give(&t->rows, (uint32_t)r, (uint32_t)n_rows);
		if (!evict_one(t))
			return -1;
	}
	f->first_row = (uint32_t)r;
	f->n_rows = (uint32_t)n_rows;
	f->first_page = (uint32_t)p;
	f->n_pages = (uint32_t)n_pages;
	return 0;
}

static void note_failure(struct stk_unwind_tables *t, const char *name, const char *why)
{
	snprintf(t->stats.last_failure, sizeof(t->stats.last_failure), "%s: %s", name ? name : "?", why);
}

/* Keeps the STK_UNWIND_BUILT_KEPT largest tables built, largest first. */
static void note_built(struct stk_unwind_tables_stats *st, const char *name, const struct stk_cfi_table *tab)
{
	size_t at = st->n_built;

	while (at > 0 && st->built[at - 1].rows < tab->n_rows)
		at--;
	if (at == STK_UNWIND_BUILT_KEPT)
		return;
	if (st->n_built < STK_UNWIND_BUILT_KEPT)
		st->n_built++;
	memmove(&st->built[at + 1], &st->built[at], (st->n_built - 1 - at) * sizeof(st->built[0]));
	st->built[at] = (struct stk_unwind_built){ .rows = tab->n_rows, .pages = tab->n_pages + 1,
						   .build_ns = tab->stats.build_ns };
	snprintf(st->built[at].name, sizeof(st->built[at].name), "%s", name ? name : "?");
}

/* f's table, built: placed and written into the maps, or FILE_NO_ROOM. */
static void store(struct stk_unwind_tables *t, struct stk_file_table *f, const char *name, const struct stk_cfi_table *tab)
{
	f->base_vaddr = tab->base_vaddr;
	if (place(t, f, tab->n_rows, tab->n_pages)) {
		t->stats.files_no_room++;
		note_failure(t, name, "no room left in the unwind tables");
		f->state = FILE_NO_ROOM;
		f->want_rows = tab->n_rows;
		f->want_pages = tab->n_pages;
	} else if (t->ops->write_rows(t->ctx, f->first_row, tab->rows, tab->n_rows) ||
		   t->ops->write_pages(t->ctx, f->first_page, tab->pages, tab->n_pages + 1)) {
		note_failure(t, name, strerror(errno));
		stk_range_alloc_give(&t->rows, f->first_row, f->n_rows);
		stk_range_alloc_give(&t->pages, f->first_page, f->n_pages + 1);
		f->state = FILE_NO_CFI; /* the maps refused it: not tried again */
	} else {
		f->state = FILE_PLACED;
		t->stats.files_built++;
		if (tab->n_rows > t->stats.biggest_rows) {
			t->stats.biggest_rows = tab->n_rows;
			snprintf(t->stats.biggest, sizeof(t->stats.biggest), "%s", name ? name : "?");
		}
		note_built(&t->stats, name, tab);
	}
}

static void build_failed(struct stk_unwind_tables *t, struct stk_file_table *f, const char *name, const char *why)
{
	t->stats.files_failed++;
	note_failure(t, name, why);
	f->state = FILE_NO_CFI;
}

/* m's file's table, built here (with the file's guard: none with a builder) and stored. */
static void build(struct stk_unwind_tables *t, struct stk_file_table *f, const struct stk_mapping *m)
{
	const struct stk_cfi_guard *guard = t->submit ? NULL : stk_file_cfi_guard(m->file);
	struct stk_cfi_table tab;
	char why[160];

	if (stk_cfi_table_build(m->file->elf, guard, &t->lim, &tab, why, sizeof(why))) {
		t->stats.build_ns += tab.stats.build_ns;
		build_failed(t, f, m->path, why);
		return;
	}
	t->stats.build_ns += tab.stats.build_ns;
	store(t, f, m->path, &tab);
	stk_cfi_table_free(&tab);
}

void stk_unwind_tables_built(struct stk_unwind_tables *t, struct stk_file *file, const char *name,
			     const struct stk_cfi_table *tab, const char *why, int64_t build_ns)
{
	struct stk_file_table *f = file->table;

	if (!f || f->state != FILE_BUILDING)
		return;
	t->stats.build_ns += build_ns;
	if (tab)
		store(t, f, name, tab);
	else
		build_failed(t, f, name, why ? why : "no table");
}

void stk_unwind_tables_each_user(const struct stk_unwind_tables *t, const struct stk_file *file,
				 void (*fn)(void *ctx, uint32_t tgid), void *ctx)
{
	uint32_t *users = NULL;
	size_t n = 0;

	/* gathered first: fn loads processes again, which changes the list */
	if (t->n_procs && !(users = calloc(t->n_procs, sizeof(*users))))
		return;
	for (size_t i = 0; i < t->n_procs; i++)
		for (size_t k = 0; k < t->procs[i]->n_maps; k++)
			if (t->procs[i]->loaded[k].file == file) {
				users[n++] = (uint32_t)t->procs[i]->proc->pid;
				break;
			}
	for (size_t i = 0; i < n; i++)
		fn(ctx, users[i]);
	free(users);
}

/* f's table wanted: built (or queued with the builder) unless there is one, or it could not have room. */
static void want_table(struct stk_unwind_tables *t, struct stk_file_table *f, const struct stk_mapping *m)
{
	struct stk_file *file = m->file;

	if (f->state == FILE_NO_ROOM && !could_fit(t, f->want_rows, f->want_pages))
		return;
	if (f->state != FILE_NEW && f->state != FILE_NO_ROOM)
		return;
	if (t->submit && (file->fd >= 0 || file->image) && t->submit(t->submit_ctx, file, m->path) == 0) {
		f->state = FILE_BUILDING;
		t->stats.files_queued++;
		return;
	}
	build(t, f, m);
}

/* The table of m's file (its part of the file's entry), built on first sight (or after eviction); NULL when out of memory. */
static struct stk_file_table *table_for(struct stk_unwind_tables *t, const struct stk_mapping *m)
{
	struct stk_file_table *f = m->file->table;

	if (!f) {
		if (stk_grow((void **)&t->files, &t->cap_files, t->n_files + 1, sizeof(*t->files)) ||
		    !(f = calloc(1, sizeof(*f))))
			return NULL;
		f->file = m->file;
		f->state = FILE_NEW;
		t->files[t->n_files++] = f;
		m->file->table = f;
	}
	want_table(t, f, m);
	f->last_use = ++t->clock;
	return f;
}

/*
 * The kernel's view of mapping m, whose file's table is f (NULL: anonymous
 * code, or a file without a kept ELF): the one place the BPF map's value is
 * made.
 */
static struct stk_unwind_mapping mapping_of(const struct stk_mapping *m, const struct stk_file_table *f)
{
	struct stk_unwind_mapping um = { .start = m->start, .end = m->end, .flags = STK_MAP_NO_CFI };

	uint64_t base;

	if (!f || f->state == FILE_NO_CFI)
		return um;
	/* not placed (yet): n_rows stays 0, the walk hands the sample to the copy path */
	if (stk_cfi_table_mapping_base(m->file->elf, f->base_vaddr, m->start, m->offset, &base))
		return um;
	um.base = base;
	um.flags = 0;
	if (f->state == FILE_PLACED) {
		um.first_row = f->first_row;
		um.n_rows = f->n_rows;
		um.first_page = f->first_page;
		um.n_pages = f->n_pages;
	}
	return um;
}

/* Whether p may reload now: a token per STK_UNWIND_RELOAD_EVERY_NS, up to the burst. */
static bool take_reload_token(struct stk_proc_tables *p, int64_t now_ns)
{
	int64_t earned = (now_ns - p->tokens_at) / STK_UNWIND_RELOAD_EVERY_NS;

	if (earned > 0) {
		p->reload_tokens = earned + p->reload_tokens > STK_UNWIND_RELOAD_BURST
					   ? STK_UNWIND_RELOAD_BURST
					   : p->reload_tokens + (unsigned)earned;
		p->tokens_at += earned * STK_UNWIND_RELOAD_EVERY_NS;
	}
	if (!p->reload_tokens)
		return false;
	p->reload_tokens--;
	return true;
}

/* p's mappings the walk can meet (at most STK_UNWIND_PROC_MAPS_MAX: *cut says more were left out); NULL when out of memory. */
static struct stk_mapping *walkable_maps(const struct stk_process *p, size_t *n, bool *cut)
{
	struct stk_mapping *maps;

	*n = 0;
	*cut = false;
	for (size_t i = 0; i < p->n_maps; i++)
		*n += walkable(&p->maps[i]);
	if (*n > STK_UNWIND_PROC_MAPS_MAX) {
		*n = STK_UNWIND_PROC_MAPS_MAX;
		*cut = true;
	}
	if (!(maps = malloc((*n ? *n : 1) * sizeof(*maps))))
		return NULL;
	for (size_t i = 0, k = 0; i < p->n_maps && k < *n; i++)
		if (walkable(&p->maps[i]))
			maps[k++] = p->maps[i];
	return maps;
}

/* A new part for p, its tokens full; NULL when out of memory. */
static struct stk_proc_tables *new_proc(struct stk_unwind_tables *t, struct stk_process *p, int64_t now_ns)
{
	struct stk_proc_tables *pt;

	if (stk_grow((void **)&t->procs, &t->cap_procs, t->n_procs + 1, sizeof(*t->procs)) ||
	    !(pt = calloc(1, sizeof(*pt))))
		return NULL;
	*pt = (struct stk_proc_tables){ .proc = p, .at = t->n_procs, .reload_tokens = STK_UNWIND_RELOAD_BURST,
					.tokens_at = now_ns };
	t->procs[t->n_procs++] = pt;
	p->tables = pt;
	return pt;
}

enum stk_unwind_load_result stk_unwind_tables_load(struct stk_unwind_tables *t, struct stk_process *p,
						   int64_t now_ns)
{
	struct stk_proc_tables *pt = p->tables;
	struct stk_unwind_mapping *um = NULL;
	struct stk_unwind_proc entry = { 0 };
	struct stk_mapping *maps;
	size_t n, held = 0;
	bool same, partial;
	int64_t first = -1;

	if (!(maps = walkable_maps(p, &n, &partial)))
		goto fail;
	/* announced again with nothing changed (its first key after a load at start) */
	same = pt && same_maps(pt, maps, n);
	if (same && !pt->partial) {
		free(maps);
		return STK_UNWIND_LOADED;
	}
	/* new mappings cost a token (its refresh_asked stays set meanwhile: the walk asks no more);
	 * the same ones again only pick up the tables placed since */
	if (pt && !same && !take_reload_token(pt, now_ns)) {
		free(maps);
		return STK_UNWIND_LATER;
	}
	if (n && !(um = calloc(n, sizeof(*um))))
		goto fail;
	for (; held < n; held++) {
		struct stk_file_table *f = NULL;

		if (has_table(&maps[held]) && !(f = table_for(t, &maps[held])))
			goto fail;
		um[held] = mapping_of(&maps[held], f);
		if (f && f->state != FILE_PLACED && f->state != FILE_NO_CFI)
			partial = true;
		if (f)
			f->refs++;
	}
	first = stk_range_alloc_take(&t->mappings, (uint32_t)n);
	if (first < 0 || (n && t->ops->write_mappings(t->ctx, (uint32_t)first, um, n)))
		goto fail;
	entry.first_map = (uint32_t)first;
	entry.n_maps = (uint32_t)n;
	entry.flags = partial ? STK_PROC_PARTIAL : 0;
	if (!pt && !(pt = new_proc(t, p, now_ns)))
		goto fail;
	if (t->ops->write_proc(t->ctx, (uint32_t)p->pid, &entry)) {
		if (!pt->loaded) /* new: nothing of it was written before */
			drop_proc(t, pt);
		goto fail;
	}
	if (pt->loaded) {
		/* the walk now reads the new entry: the old slots are free */
		stk_range_alloc_give(&t->mappings, pt->first_map, pt->n_maps);
		unref(pt->loaded, pt->n_maps);
		free(pt->loaded);
		t->stats.reloads++;
	} else {
		t->stats.procs_loaded++;
	}
	pt->first_map = (uint32_t)first;
	pt->n_maps = (uint32_t)n;
	pt->loaded = maps;
	pt->partial = partial;
	if (partial)
		t->stats.procs_partial++;
	free(um);
	return partial ? STK_UNWIND_PARTIAL : STK_UNWIND_LOADED;
fail:
	if (first >= 0)
		stk_range_alloc_give(&t->mappings, (uint32_t)first, (uint32_t)n);
	if (maps)
		unref(maps, held);
	free(um);
	free(maps);
	t->stats.procs_failed++;
	return STK_UNWIND_LOAD_FAILED;
}

void stk_unwind_tables_forget(struct stk_unwind_tables *t, struct stk_process *p)
{
	struct stk_proc_tables *pt = p->tables;

	if (!pt)
		return;
	t->ops->delete_proc(t->ctx, (uint32_t)p->pid);
	stk_range_alloc_give(&t->mappings, pt->first_map, pt->n_maps);
	drop_proc(t, pt);
}

bool stk_unwind_tables_has(const struct stk_unwind_tables *t, const struct stk_process *p)
{
	(void)t;
	return p->tables != NULL;
}

void stk_unwind_tables_get_stats(const struct stk_unwind_tables *t, struct stk_unwind_tables_stats *st)
{
	*st = t->stats;
	st->rows_used = t->rows.used;
	st->rows_peak = t->rows.peak;
	st->rows_cap = t->cap.rows;
	st->pages_used = t->pages.used;
	st->pages_cap = t->cap.pages;
	st->mappings_used = t->mappings.used;
	st->mappings_cap = t->cap.mappings;
}
