/*
 * Each process's mappings in the kernel's maps (see unwind_tables.h), kept
 * in its process-table entry: loaded, reloaded on a budget, forgotten; and
 * the tables' lifecycle. Files' tables: file_tables.c.
 */
#include "core/unwind/unwind_tables_state.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

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
	stk_file_tables_release(t);
	stk_range_alloc_release(&t->rows);
	stk_range_alloc_release(&t->pages);
	stk_range_alloc_release(&t->mappings);
	free(t);
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

		if (has_table(&maps[held]) && !(f = stk_file_table_for(t, &maps[held])))
			goto fail;
		um[held] = stk_file_table_mapping(&maps[held], f);
		if (f && stk_file_table_pending(f))
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
	entry.gen = ++t->gen; /* the walks kept for the old entry no longer hold */
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
