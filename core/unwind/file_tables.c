/*
 * Each file's table in the kernel's maps (see unwind_tables.h): kept in its
 * file-cache entry, built once (here, or on the builder's thread), placed in
 * the rows and pages, evicted oldest first when unused and room is short.
 */
#include "core/unwind/unwind_tables_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

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

struct stk_file_table *stk_file_table_for(struct stk_unwind_tables *t, const struct stk_mapping *m)
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

struct stk_unwind_mapping stk_file_table_mapping(const struct stk_mapping *m, const struct stk_file_table *f)
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

bool stk_file_table_pending(const struct stk_file_table *f)
{
	return f->state != FILE_PLACED && f->state != FILE_NO_CFI;
}

bool stk_unwind_tables_let_go(struct stk_unwind_tables *t, struct stk_file *file)
{
	struct stk_file_table *f = file->table;
	size_t i;

	if (!f)
		return true;
	/* a loaded process still points at its rows; the builder's job still names the file */
	if (f->refs || f->state == FILE_BUILDING)
		return false;
	if (f->state == FILE_PLACED) {
		stk_range_alloc_give(&t->rows, f->first_row, f->n_rows);
		stk_range_alloc_give(&t->pages, f->first_page, f->n_pages + 1);
	}
	for (i = 0; i < t->n_files && t->files[i] != f; i++)
		;
	if (i < t->n_files)
		t->files[i] = t->files[--t->n_files];
	file->table = NULL;
	free(f);
	t->stats.files_let_go++;
	return true;
}

void stk_file_tables_release(struct stk_unwind_tables *t)
{
	for (size_t i = 0; i < t->n_files; i++) {
		t->files[i]->file->table = NULL;
		free(t->files[i]);
	}
	free(t->files);
	t->files = NULL;
	t->n_files = t->cap_files = 0;
}
